// Animation clips: listing them, and picking, renaming, cutting and retiming them
// (`meshport anims`, convert's --anim, --rename-anim, --clip, --fps, --loop / --no-loop;
// docs/animations.md). Implementation: src/ops/animation/clips.cpp.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshport {

// One clip as `meshport anims` lists it.
struct ClipInfo {
  std::string name;
  size_t frames = 0;  // pose frames; for a clip of morph weights only, the most keys of its tracks
  float fps = 0;      // 0 when the file gave none
  bool loop = false;
  // Joints whose pose in some frame differs from their pose in the first frame.
  size_t joints_animated = 0;
  size_t morph_weight_tracks = 0;
  // Seconds from the first key to the last: the span of the key times when the clip has them,
  // else (frames - 1) / fps (0 when fps is 0); morph weight tracks count too.
  float duration = 0;
};
std::vector<ClipInfo> list_clips(const Scene& scene);

// --clip NAME=SRC:START:END[@FPS][,loop]: frames START..END of clip SRC (0-based, both included,
// as the reference IQM compiler's --start/--end) as a new clip NAME; END may be left empty for
// the last frame. FPS defaults to SRC's; loop defaults to off.
struct ClipCut {
  std::string name;
  std::string source;
  uint32_t start = 0;
  std::optional<uint32_t> end;  // unset: SRC's last frame
  std::optional<float> fps;
  bool loop = false;
};

// What convert does to the clips after attaching every input's animations and before any other
// step. Every option names clips by their name after attaching (or by a cut's NAME); renames
// only change the name written, and come last. Order: cuts are added, then --fps and --loop /
// --no-loop apply, then the selection keeps what it names (in the selection's order), then
// renames. Each name must match a clip: an unknown name is an error listing the clips there are.
struct ClipOptions {
  std::vector<ClipCut> cuts;
  std::vector<std::string> keep;  // --anim: empty keeps every clip
  std::vector<std::pair<std::string, std::string>> renames;  // --rename-anim OLD=NEW
  std::vector<std::pair<std::string, float>> fps;            // --fps NAME=FPS
  std::vector<std::pair<std::string, bool>> loop;            // --loop NAME / --no-loop NAME
  bool empty() const { return cuts.empty() && keep.empty() && renames.empty() && fps.empty() && loop.empty(); }
};

// Parsers of the command-line forms ("walk=all:10:40@30,loop", "old=new", "walk=24"); they throw
// meshport::Error whose message starts with the option's name.
ClipCut parse_clip_cut(std::string_view text);
std::pair<std::string, std::string> parse_clip_rename(std::string_view text);
std::pair<std::string, float> parse_clip_fps(std::string_view text);

// Applies `options` to scene.animations; throws meshport::Error (naming `file`) when a name
// matches no clip, a cut is out of range, or a rename would give two clips one name.
void edit_clips(Scene& scene, const ClipOptions& options, const std::string& file = "clips",
                Diagnostics* diags = nullptr);

// Whether a Scene holds anything to write: a mesh (even without vertices), an animation, an
// attachment, or a format's model data (Scene::pie, qmsh_tmp, qmsh, modedef: an empty PIE level,
// a QMSH TMP file of curves round trip). convert refuses to write one that does not unless
// ConvertOptions::allow_empty.
bool has_content(const Scene& scene);

// ---- Retargeting (src/ops/animation/clips.cpp) -----------------------------------------------------------
// Frames of `poses` (channels per frame = source.size()) animating skeleton `source`, as poses of
// skeleton `target`: map[t] is the source joint driving target joint t, or -1. Each mapped joint
// gets the world transform A_t = A_s * B_s^-1 * B_t (A animated world, B rest world), so that
// its skinning matrix A_t * B_t^-1 equals the source's and a mesh bound to either skeleton in the
// same place deforms the same; unmapped joints keep their rest transform relative to their
// parent. Parent-relative results are decomposed into translation, rotation and scale (exact
// for uniform scales).
std::vector<Transform> retarget_poses(const std::vector<Joint>& source, const std::vector<Joint>& target,
                                      const std::vector<int64_t>& map, const std::vector<Transform>& poses);

// Appends `source`'s animations to `target`, remapping their channels to target's joints: by name
// when both skeletons name every joint, else by index when they have the same joint count and
// parents. Poses are retargeted where matched joints differ in rest pose or parent (clips.h
// retarget_poses). A clip whose name is taken is dropped (a note) when its data is the same, else
// renamed NAME.2, NAME.3, ... (a warning). Throws meshport::Error (naming `source_name`) when the
// skeletons cannot be matched, naming the first joint that differs.
void attach_animations(Scene& target, const Scene& source, const std::string& source_name,
                       Diagnostics* diags = nullptr);

}  // namespace meshport
