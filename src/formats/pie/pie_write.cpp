// PIE writer (pie.h; docs/pie.md, "Out of the Scene").
//
// A Scene read from PIE (one with Scene::pie) is written back from its PieData wherever the
// meshes, attachments and animations still agree with it, so that PIE -> Scene -> PIE is
// lossless. Any other Scene gets what PIE needs derived from its meshes, materials, attachments
// and animations.
#include "core/math.h"
#include "core/text.h"
#include "formats/pie/pie.h"
#include "formats/pie/pie_common.h"
#include "formats/pie/pie_textures.h"
#include "ops/animation/euler.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace meshport::pie {
namespace {

using Point = std::array<float, 3>;

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr int32_t kUnskinned = -1, kSkinnedToSeveral = -2;

std::string pie_quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

const char* texture_keyword(PieTexture::Kind k) {
  switch (k) {
    case PieTexture::Kind::Texture:
      return "TEXTURE";
    case PieTexture::Kind::TcMask:
      return "TCMASK";
    case PieTexture::Kind::NormalMap:
      return "NORMALMAP";
    case PieTexture::Kind::SpecularMap:
      return "SPECULARMAP";
  }
  return "TEXTURE";
}

bool page_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}


// Map key of a position: its bits, -0 counted as 0.
std::array<uint32_t, 3> point_key(const Point& p) {
  std::array<uint32_t, 3> k{};
  for (size_t c = 0; c < 3; ++c) {
    float v = p[c] + 0.0f;
    std::memcpy(&k[c], &v, sizeof v);
  }
  return k;
}

// ---- Joints and poses ------------------------------------------------------------------------

// The joint every vertex of `m` is bound to with weight 1; kUnskinned without blend streams,
// kSkinnedToSeveral for any other skinning.
int32_t rigid_joint(const Mesh& m, size_t joint_count) {
  const VertexStream* bi = m.find(Attribute::BlendIndices);
  const VertexStream* bw = m.find(Attribute::BlendWeights);
  if (!bi || !bw || m.vertex_count() == 0) return kUnskinned;
  int32_t joint = -1;
  for (size_t v = 0; v < m.vertex_count(); ++v) {
    int32_t j = -1;
    float total = 0;
    for (uint32_t c = 0; c < bw->components; ++c) {
      float w = bw->get(v, c);
      if (!(w > 0)) continue;
      auto idx = int32_t(bi->get(v, c, -1));
      if (j >= 0 && idx != j) return kSkinnedToSeveral;
      j = idx;
      total += w;
    }
    if (j < 0 || size_t(j) >= joint_count || std::fabs(total - 1.0f) > 1e-6f) return kSkinnedToSeveral;
    if (joint >= 0 && j != joint) return kSkinnedToSeveral;
    joint = j;
  }
  return joint;
}

// Joint j and its ancestors, root first (parents precede their children; anything else ends
// the chain).
std::vector<int32_t> chain_of(const Scene& scene, int32_t j) {
  std::vector<int32_t> chain;
  while (j >= 0 && size_t(j) < scene.joints.size()) {
    chain.push_back(j);
    int32_t p = scene.joints[size_t(j)].parent;
    if (p >= j) break;
    j = p;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

template <class Local>
Mat3x4 chain_matrix(const std::vector<int32_t>& chain, Local local) {
  Mat3x4 m = mat_identity();
  for (int32_t k : chain) {
    const Transform& t = local(k);
    m = mat_mul(m, mat_from_trs(t.translation, t.rotation, t.scale));
  }
  return m;
}

// Rotation matrix (orthonormal columns x, y, z) to a unit quaternion.
Quat quat_from_columns(const Vec3& x, const Vec3& y, const Vec3& z) {
  double m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2], m02 = z[0], m12 = z[1], m22 = z[2];
  double trace = m00 + m11 + m22;
  double qx, qy, qz, qw;
  if (trace > 0) {
    double s = std::sqrt(trace + 1.0) * 2;
    qw = s / 4, qx = (m21 - m12) / s, qy = (m02 - m20) / s, qz = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    double s = std::sqrt(1.0 + m00 - m11 - m22) * 2;
    qw = (m21 - m12) / s, qx = s / 4, qy = (m01 + m10) / s, qz = (m02 + m20) / s;
  } else if (m11 > m22) {
    double s = std::sqrt(1.0 + m11 - m00 - m22) * 2;
    qw = (m02 - m20) / s, qx = (m01 + m10) / s, qy = s / 4, qz = (m12 + m21) / s;
  } else {
    double s = std::sqrt(1.0 + m22 - m00 - m11) * 2;
    qw = (m10 - m01) / s, qx = (m02 + m20) / s, qy = (m12 + m21) / s, qz = s / 4;
  }
  return quat_normalize({float(qx), float(qy), float(qz), float(qw)});
}

// A scale computed from matrices, rounded to 6 significant digits so that float noise
// (0.99999994) does not reach the file.
float tidy_scale(float s) {
  char buf[32];
  auto w = std::to_chars(buf, buf + sizeof buf, s, std::chars_format::general, 6);
  float r = s;
  std::from_chars(buf, w.ptr, r);
  return r;
}

// Translation, rotation and scale of an affine matrix (a mirror goes into scale x).
Transform decompose(const Mat3x4& m) {
  Transform t;
  t.translation = {m[9], m[10], m[11]};
  Vec3 col[3] = {{m[0], m[1], m[2]}, {m[3], m[4], m[5]}, {m[6], m[7], m[8]}};
  for (size_t c = 0; c < 3; ++c) t.scale[c] = length(col[c]);
  if (dot(cross(col[0], col[1]), col[2]) < 0) t.scale[0] = -t.scale[0];
  if (t.scale[0] == 0 || t.scale[1] == 0 || t.scale[2] == 0) return t;
  for (size_t c = 0; c < 3; ++c) col[c] = col[c] * (1.0f / t.scale[c]);
  t.rotation = quat_from_columns(col[0], col[1], col[2]);
  for (float& s : t.scale) s = tidy_scale(s);
  return t;
}

const Transform& pose_at(const Animation& a, size_t frame, int32_t joint) {
  return a.poses[frame * a.channels + size_t(joint)];
}

// Equal poses; a rotation also equals its negation (glTF, for one, keeps w >= 0).
// A Scene pose equal to what a kept ANIMOBJECT frame gives within the rounding of its
// thousandths: translation within 0.0005 (half a thousandth of a unit), rotation within 1e-5 per
// quaternion component (about a thousandth of a degree; q and -q are one rotation: glTF keeps
// keys in one hemisphere), scale within 1e-5 of it (relative). What another tool's float
// rounding changes (Blender's keys at the file's own frame rate) still matches.
bool same_pose(const Transform& a, const Transform& b) {
  for (int c = 0; c < 3; ++c) {
    if (!(std::fabs(a.translation[c] - b.translation[c]) <= 5e-4f)) return false;
    if (!(std::fabs(a.scale[c] - b.scale[c]) <= 1e-5f * std::max(1.0f, std::fabs(b.scale[c])))) return false;
  }
  bool plus = true, minus = true;
  for (int c = 0; c < 4; ++c) {
    plus = plus && std::fabs(a.rotation[c] - b.rotation[c]) <= 1e-5f;
    minus = minus && std::fabs(a.rotation[c] + b.rotation[c]) <= 1e-5f;
  }
  return plus || minus;
}

bool covers(const Animation& a, const std::vector<int32_t>& chain) {
  if (a.channels == 0 || a.frame_count() == 0) return false;
  for (int32_t k : chain)
    if (size_t(k) >= a.channels) return false;
  return true;
}

// ANIMOBJECT time (ms per frame) of a frame rate; 0 counts as 30 frames per second.
int32_t frame_time(float framerate) {
  double fps = framerate > 0 && std::isfinite(framerate) ? double(framerate) : 30.0;
  double ms = std::round(1000.0 / fps);
  return int32_t(std::clamp(ms, 1.0, 2147483647.0));
}

// ---- The writer ------------------------------------------------------------------------------

// A level as written: its mesh (-1: written empty) and the PIE data kept for it (null when the
// level is derived from the mesh alone).
struct Level {
  int32_t mesh = -1;
  const PieLevel* pie = nullptr;
  PageSet pages;        // the pages the mesh's material names (file names)
  const Material* material = nullptr;  // the mesh's material
  int32_t joint = kUnskinned;  // rigid_joint() of the mesh
};

class Writer {
 public:
  Writer(const Scene& scene, const WriteOptions& options, Diagnostics& diags)
      : scene_(scene), diags_(diags), from_pie_(scene.pie.has_value()) {
    version_ = options.pie_version != 0 ? options.pie_version : from_pie_ ? scene.pie->version : 4;
    if (version_ < 2 || version_ > 4)
      fail("", fmt::format("PIE version {} cannot be written: use 2, 3 or 4", version_));
  }

  std::string write() {
    plan_levels();
    for (const Level& l : levels_)
      if (l.mesh >= 0) check_mesh(l);
    place_attachments();
    derive_maps_ = !from_pie_ || !kept_maps_match();
    if (derive_maps_) global_pages_ = model_pages();
    out_ = fmt::format("PIE {}\n", version_);
    if (from_pie_)
      pie_header();
    else
      derived_header();
    derived_textures();
    check_alpha();
    out_ += fmt::format("LEVELS {}\n", levels_.size());
    for (size_t i = 0; i < levels_.size(); ++i) level(i);
    return std::move(out_);
  }

 private:
  const Scene& scene_;
  Diagnostics& diags_;
  bool from_pie_;
  int version_ = 4;
  std::string out_;
  std::vector<Level> levels_;
  std::vector<std::vector<size_t>> connectors_;  // per level: indices into scene_.attachments
  uint32_t derived_type_ = 0x200;  // the TYPE written for a Scene not from PIE
  bool derive_maps_ = true;  // TCMASK, NORMALMAP, SPECULARMAP from the materials, not from PieData
  PageSet global_pages_;     // derive_maps_: the model's (global) pages
  bool warned_tcmask_ = false, warned_tileset_ = false;
  bool first_field_ = true;

  // ---- Output helpers ------------------------------------------------------------------------
  void data_line() {
    out_ += '\t';
    first_field_ = true;
  }
  void sep() {
    if (!first_field_) out_ += ' ';
    first_field_ = false;
  }
  void put(float f) {
    sep();
    text::append_float(out_, f);
  }
  void put(int64_t v) {
    sep();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, size_t(r.ptr - buf));
  }
  void put_hex(uint32_t v) {
    sep();
    out_ += fmt::format("{:x}", v);
  }
  void end_line() { out_ += '\n'; }

  // Free text on one line: line breaks become spaces, with a warning.
  std::string one_line(std::string s, std::string_view what) {
    bool changed = false;
    for (char& c : s)
      if (c == '\n' || c == '\r') c = ' ', changed = true;
    if (changed)
      diags_.add(warning("", fmt::format("{} has a line break, which PIE cannot hold: written with a space", what)));
    return s;
  }

  // ---- Levels --------------------------------------------------------------------------------
  static bool has_triangles(const Scene& s, int32_t mesh) {
    return mesh >= 0 && size_t(mesh) < s.meshes.size() && !s.meshes[size_t(mesh)].triangles.empty();
  }

  Level make_level(int32_t mesh, const PieLevel* pie) {
    Level l;
    l.mesh = mesh;
    l.pie = pie;
    if (mesh < 0) return l;
    const Mesh& m = scene_.meshes[size_t(mesh)];
    l.joint = rigid_joint(m, scene_.joints.size());
    if (l.joint == kSkinnedToSeveral)
      diags_.add(warning("", fmt::format("mesh {} is skinned to several joints, which PIE cannot hold: written in "
                                         "its rest pose without animation",
                                         pie_quoted(m.name))));
    if (m.material >= 0 && size_t(m.material) < scene_.materials.size()) {
      l.material = &scene_.materials[size_t(m.material)];
      l.pages = pages_of(*l.material);
    }
    return l;
  }

  // PieData levels in order (empty ones where they were), then meshes with triangles no level
  // names, in Scene order.
  void plan_levels() {
    std::vector<bool> used(scene_.meshes.size(), false);
    if (from_pie_) {
      for (size_t i = 0; i < value_or_empty(scene_.pie).levels.size(); ++i) {
        const PieLevel& pl = value_or_empty(scene_.pie).levels[i];
        if (pl.mesh >= 0 && !has_triangles(scene_, pl.mesh)) {
          diags_.add(warning("", fmt::format("level {}: its mesh is missing or has no triangles: written empty", i + 1)));
          levels_.push_back(make_level(-1, &pl));
          continue;
        }
        if (pl.mesh >= 0) used[size_t(pl.mesh)] = true;
        levels_.push_back(make_level(pl.mesh, &pl));
      }
    }
    for (size_t m = 0; m < scene_.meshes.size(); ++m)
      if (!used[m] && has_triangles(scene_, int32_t(m))) levels_.push_back(make_level(int32_t(m), nullptr));
    if (levels_.empty()) {
      diags_.add(warning("", "no mesh has triangles: written as one empty level"));
      levels_.push_back(Level{});
    }
  }

  // Errors for a mesh PIE cannot be written from.
  void check_mesh(const Level& l) {
    const Mesh& m = scene_.meshes[size_t(l.mesh)];
    const VertexStream* pos = m.find(Attribute::Position);
    if (!pos || pos->components < 3) fail("", fmt::format("mesh {} has no positions", pie_quoted(m.name)));
    size_t n = pos->vertex_count();
    for (const VertexStream& s : m.streams)
      if (s.components && s.vertex_count() != n)
        fail("", fmt::format("mesh {}: its vertex streams have different lengths", pie_quoted(m.name)));
    if (m.triangles.size() % 3) fail("", fmt::format("mesh {}: triangle list is not a multiple of 3", pie_quoted(m.name)));
    for (uint32_t i : m.triangles)
      if (i >= n) fail("", fmt::format("mesh {}: triangle index {} out of range", pie_quoted(m.name), i));
    for (float v : pos->data)
      if (!std::isfinite(v)) fail("", fmt::format("mesh {}: a position is not finite", pie_quoted(m.name)));
    size_t polygons = m.triangles.size() / 3;
    if (polygons > kMaxPolygons)
      fail("", fmt::format("mesh {} has {} triangles: a PIE level holds at most {} polygons (Warzone 2100 draws a "
                           "level with 16-bit indices; docs/pie.md); simplify it with --simplify-to {} (or "
                           "--simplify RATIO)",
                           pie_quoted(m.name), polygons, kMaxPolygons, kMaxPolygons));
  }

  // ---- Header --------------------------------------------------------------------------------
  void check_page(const PieTexture& t) {
    if (t.file.empty() || !std::all_of(t.file.begin(), t.file.end(), page_char))
      fail("", fmt::format("texture page {} has characters outside [A-Za-z0-9._-]", pie_quoted(t.file)));
    if (!t.file.ends_with(".png"))
      fail("", fmt::format("texture page {} is not a .png file: PIE pages must be PNG", pie_quoted(t.file)));
    if (t.tileset < 0 || t.tileset > 2)
      fail("", fmt::format("texture page {}: tileset {} is outside 0..2", pie_quoted(t.file), t.tileset));
  }

  void warn_pie4_texture(const PieTexture& t) {
    if (version_ == 4) return;
    if (t.kind == PieTexture::Kind::TcMask && !warned_tcmask_) {
      warned_tcmask_ = true;
      diags_.add(warning("", fmt::format("TCMASK is PIE 4 only: written into PIE {} anyway; engines before 4.4 "
                                         "reject it",
                                         version_)));
    }
    if (t.tileset > 0 && !warned_tileset_) {
      warned_tileset_ = true;
      diags_.add(warning("", fmt::format("texture pages for tilesets 1 and 2 are PIE 4 only: written into PIE {} "
                                         "anyway; engines before 4.4 reject them",
                                         version_)));
    }
  }

  void texture_line(const PieTexture& t) {
    check_page(t);
    warn_pie4_texture(t);
    out_ += fmt::format("{} {} {}", texture_keyword(t.kind), t.tileset, t.file);
    if (t.kind == PieTexture::Kind::Texture && t.has_size) out_ += fmt::format(" {} {}", t.width, t.height);
    end_line();
  }

  void settings(const PieSettings& s, bool global) {
    if (s.has_type || global) out_ += fmt::format("TYPE {:x}\n", s.has_type ? s.type : kTextured);
    if (s.has_interpolate) out_ += fmt::format("INTERPOLATE {}\n", s.interpolate);
    for (const PieTexture& t : s.textures)
      if (!derive_maps_ || t.kind == PieTexture::Kind::Texture) texture_line(t);
  }

  void pie_header() {
    settings(value_or_empty(scene_.pie).global, true);
    for (const PieEvent& e : value_or_empty(scene_.pie).events) {
      if (e.type < 1 || e.type > 3) fail("", fmt::format("EVENT type {} is not 1, 2 or 3", e.type));
      bool plain = !e.file.empty() && std::none_of(e.file.begin(), e.file.end(), [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#';
      });
      if (!plain) fail("", fmt::format("EVENT file {} is empty or has spaces, line breaks or #", pie_quoted(e.file)));
      out_ += fmt::format("EVENT {} {}\n", e.type, e.file);
    }
  }

  // A Scene from PIE keeps its TCMASK, NORMALMAP and SPECULARMAP lines while every level's
  // material names maps the kept lines name (any scope or tileset; a TCMASK the engine derives
  // from TYPE 10000 counts). An empty slot does not count as a change: formats without that map
  // (IQM, OBJ, glTF without the extension) drop it on the way. TEXTURE lines are always kept.
  bool kept_maps_match() {
    const PieData& d = value_or_empty(scene_.pie);
    auto named = [&](PieTexture::Kind kind, const std::string& file) {
      auto in = [&](const PieSettings& st) {
        return std::any_of(st.textures.begin(), st.textures.end(),
                           [&](const PieTexture& t) { return t.kind == kind && t.file == file; });
      };
      if (in(d.global)) return true;
      for (size_t i = 0; i < d.levels.size(); ++i) {
        if (in(d.levels[i].overrides)) return true;
        if (kind == PieTexture::Kind::TcMask && pages_in_effect(d, int32_t(i), nullptr).tcmask == file) return true;
      }
      return kind == PieTexture::Kind::TcMask && pages_in_effect(d, -1, nullptr).tcmask == file;
    };
    for (const Level& l : levels_) {
      if (l.mesh < 0) continue;
      const std::tuple<PieTexture::Kind, const std::string*> maps[] = {{PieTexture::Kind::TcMask, &l.pages.tcmask},
                                                                       {PieTexture::Kind::NormalMap, &l.pages.normal},
                                                                       {PieTexture::Kind::SpecularMap,
                                                                        &l.pages.specular}};
      for (const auto& [kind, file] : maps)
        if (!file->empty() && !named(kind, *file)) {
          diags_.add(warning("", fmt::format("mesh {}: its material names the {} page {}, which the kept PIE "
                                             "texture lines do not: TCMASK, NORMALMAP and SPECULARMAP written from "
                                             "the materials",
                                             pie_quoted(scene_.meshes[size_t(l.mesh)].name), texture_keyword(kind),
                                             pie_quoted(*file))));
          return false;
        }
    }
    return true;
  }

  // The model's pages: the first level's with a textured material, else the first textured
  // material's.
  PageSet model_pages() const {
    for (const Level& l : levels_)
      if (!l.pages.base.empty()) return l.pages;
    for (const Material& mat : scene_.materials)
      if (!pages_of(mat).base.empty()) return pages_of(mat);
    return {};
  }

  // PIE 2 and 3 name the team colour mask by TYPE 10000 when it is the one the engine derives.
  bool tcmask_by_type(const PageSet& p) const {
    if (from_pie_ && !(value_or_empty(scene_.pie).global.type & 0x10000)) return false;
    return version_ < 4 && !p.tcmask.empty() && p.tcmask == derived_tcmask(p.base);
  }

  // The material of the model's pages (model_pages()), or null.
  const Material* model_material() const {
    for (const Level& l : levels_)
      if (!l.pages.base.empty()) return l.material;
    for (const Material& mat : scene_.materials)
      if (!pages_of(mat).base.empty()) return &mat;
    return nullptr;
  }

  // Scene not from PIE: TYPE 200 (10200 with a derived mask; with 2 or 4 for an additive or
  // premultiplied material: pie_textures.h blend_flags) and INTERPOLATE.
  void derived_header() {
    const Material* mat = model_material();
    derived_type_ = (tcmask_by_type(global_pages_) ? 0x10200 : 0x200) | (mat ? blend_flags(*mat) : 0);
    out_ += fmt::format("TYPE {:x}\n", derived_type_);
    // Animations that hold their frames (glTF STEP): the engine's INTERPOLATE 0.
    bool any = false, step = true;
    for (const Animation& a : scene_.animations)
      if (a.frame_count()) any = true, step = step && a.interpolation == Interpolation::Step;
    if (any && step) out_ += "INTERPOLATE 0\n";
  }

  // Warns for each level whose material's alpha is not how Warzone 2100 draws the level by the
  // TYPE written (pie_textures.h set_alpha): a cut-off other than 0.5, straight alpha blending,
  // blending another level's TYPE does not give. Opaque materials pass: the game's alpha test
  // changes nothing on a page without alpha.
  void check_alpha() {
    for (size_t i = 0; i < levels_.size(); ++i) {
      const Level& l = levels_[i];
      if (!l.material || l.material->alpha_mode == AlphaMode::Opaque) continue;
      const uint32_t type = from_pie_ ? (l.pie ? type_in_effect(*scene_.pie, int32_t(l.pie - scene_.pie->levels.data()))
                                               : scene_.pie->global.type)
                                      : derived_type_;
      Material shown;
      set_alpha(shown, type);
      if (same_alpha(*l.material, shown)) continue;
      diags_.add(warning("", fmt::format("mesh {}: material {} is {}, but Warzone 2100 draws level {} of TYPE {:x} {}",
                                         pie_quoted(scene_.meshes[size_t(l.mesh)].name), pie_quoted(l.material->name),
                                         alpha_text(*l.material), i + 1, type, alpha_text(shown))));
    }
  }

  static std::string alpha_text(const Material& m) {
    if (m.alpha_mode == AlphaMode::Mask) return fmt::format("cut out below alpha {}", m.alpha_cutoff);
    if (m.alpha_mode == AlphaMode::Blend) return fmt::format("blended ({})", blend_op_name(m.blend));
    return "opaque";
  }

  // A map page line, or a warning when the name cannot be a PIE page.
  void map_line(PieTexture::Kind kind, const std::string& file, std::string_view what) {
    if (file.empty()) return;
    if (!std::all_of(file.begin(), file.end(), page_char) || !file.ends_with(".png")) {
      diags_.add(warning("", fmt::format("{} {} is not a PIE page name (.png, characters [A-Za-z0-9._-]): left out",
                                         what, pie_quoted(file))));
      return;
    }
    PieTexture t;
    t.kind = kind;
    t.file = file;
    texture_line(t);
  }

  // TEXTURE 0 (Scene not from PIE), TCMASK 0, NORMALMAP 0, SPECULARMAP 0 of the model's pages.
  void derived_textures() {
    if (!derive_maps_) return;
    const PageSet& g = global_pages_;
    if (!from_pie_) {
      if (g.base.empty()) {
        diags_.add(warning("", "no material has a texture: written without a TEXTURE line"));
        return;
      }
      PieTexture t;
      t.file = g.base;
      texture_line(t);
    }
    if (!tcmask_by_type(g)) map_line(PieTexture::Kind::TcMask, g.tcmask, "team colour mask");
    map_line(PieTexture::Kind::NormalMap, g.normal, "normal map");
    map_line(PieTexture::Kind::SpecularMap, g.specular, "specular map");
    for (const Level& l : levels_) {
      if (from_pie_ || l.pages.base.empty() || l.pages.base == g.base || version_ == 4) continue;
      fail("", fmt::format("mesh {} uses texture page {} but the model's page is {}: PIE {} has one page per model "
                           "(PIE 4 can give each level its own)",
                           pie_quoted(scene_.meshes[size_t(l.mesh)].name), pie_quoted(l.pages.base), pie_quoted(g.base), version_));
    }
  }

  // derive_maps_: a level's own page and maps where they differ from the model's (PIE 4 overrides).
  void derived_overrides(size_t i, const Level& l) {
    const PageSet& g = global_pages_;
    const PageSet& p = l.pages;
    if (p.base.empty() || l.mesh < 0) return;
    const std::string& mesh = scene_.meshes[size_t(l.mesh)].name;
    const std::tuple<PieTexture::Kind, const std::string*, const std::string*, const char*> maps[] = {
        {PieTexture::Kind::TcMask, &p.tcmask, &g.tcmask, "team colour mask"},
        {PieTexture::Kind::NormalMap, &p.normal, &g.normal, "normal map"},
        {PieTexture::Kind::SpecularMap, &p.specular, &g.specular, "specular map"}};
    if (version_ != 4) {
      for (const auto& [kind, own, model, what] : maps)
        if (*own != *model)
          diags_.add(warning("", fmt::format("mesh {}: its {} {} differs from the model's {}: PIE {} has one per "
                                             "model, so level {} shows the model's",
                                             pie_quoted(mesh), what, pie_quoted(*own), pie_quoted(*model), version_, i + 1)));
      return;
    }
    if (!from_pie_ && p.base != g.base) {
      PieTexture t;
      t.file = p.base;
      texture_line(t);
    }
    for (const auto& [kind, own, model, what] : maps) {
      if (*own == *model) continue;
      if (own->empty()) {
        diags_.add(warning("", fmt::format("mesh {} has no {} but the model's is {}: PIE levels cannot unset it, so "
                                           "level {} shows it",
                                           pie_quoted(mesh), what, pie_quoted(*model), i + 1)));
        continue;
      }
      map_line(kind, *own, what);
    }
  }

  // ---- One level -----------------------------------------------------------------------------
  void level(size_t i) {
    const Level& l = levels_[i];
    const PieLevel* pl = l.pie;
    out_ += fmt::format("LEVEL {}", i + 1);
    if (pl && !pl->comment.empty())
      out_ += " # " + one_line(pl->comment, fmt::format("the comment of level {}", i + 1));
    end_line();
    if (pl) {
      const PieSettings& o = pl->overrides;
      if (version_ != 4 && (o.has_type || o.has_interpolate || !o.textures.empty()))
        diags_.add(warning("", fmt::format("level {}: per-level TYPE, INTERPOLATE and texture lines are PIE 4 only: "
                                           "written into PIE {} anyway; engines before 4.4 reject them",
                                           i + 1, version_)));
      settings(o, false);
    }
    if (derive_maps_) derived_overrides(i, l);
    if (pl) {
      for (const std::string& s : pl->materials)
        out_ += "MATERIALS " + one_line(s, fmt::format("a MATERIALS line of level {}", i + 1)) + "\n";
      for (const std::string& s : pl->shaders)
        out_ += "SHADERS " + one_line(s, fmt::format("a SHADERS line of level {}", i + 1)) + "\n";
    }
    if (l.mesh >= 0)
      mesh_level(i, l);
    else
      empty_level(l);
    connectors(i);
    animobject(i, l);
    if (pl) shadows(*pl);
  }

  void points_block(const std::vector<Point>& points) {
    out_ += fmt::format("POINTS {}\n", points.size());
    for (const Point& p : points) {
      data_line();
      for (float v : p) put(v);
      end_line();
    }
  }

  void empty_level(const Level& l) {
    points_block(l.pie ? l.pie->points : std::vector<Point>{});
    out_ += "POLYGONS 0\n";
  }

  // The points of a level and the point of each vertex: the original point of a vertex that
  // still sits on it (its "pie.point" value), else the first point (original or added) at its
  // position, else a new one. Vertices are visited in file order (polygons in order, corners
  // a b c), so a mesh from another format gets its points welded in order of first use.
  std::pair<std::vector<Point>, std::vector<uint32_t>> level_points(const Mesh& m, const PieLevel* pl) {
    std::vector<Point> points = pl ? pl->points : std::vector<Point>{};
    const VertexStream& pos = *m.find(Attribute::Position);
    const VertexStream* ps = pl ? point_stream(m) : nullptr;
    std::vector<uint32_t> original;
    if (ps && ps->vertex_count() == pos.vertex_count()) {
      original.reserve(ps->data.size());
      for (float f : ps->data)  // a value that is not a point index matches no point
        original.push_back(f >= 0 && f < float(kMaxPoints) && f == std::floor(f) ? uint32_t(f) : kNone);
    }
    std::vector<uint32_t> of_vertex(pos.vertex_count(), kNone);
    std::map<std::array<uint32_t, 3>, uint32_t> at;
    std::set<std::array<uint32_t, 3>> duplicated;  // positions of several original points
    for (size_t k = points.size(); k-- > 0;)
      if (!at.emplace(point_key(points[k]), uint32_t(k)).second) {
        duplicated.insert(point_key(points[k]));
        at[point_key(points[k])] = uint32_t(k);
      }
    size_t ambiguous = 0;  // vertices without their point at a duplicated position
    for (size_t t = 0; t < m.triangles.size(); t += 3)
      for (size_t c : {0, 2, 1}) {
        uint32_t v = m.triangles[t + c];
        if (of_vertex[v] != kNone) continue;
        Point p = scene_to_point({pos.get(v, 0), pos.get(v, 1), pos.get(v, 2)});
        if (v < original.size() && original[v] < points.size() && points[original[v]] == p) {
          of_vertex[v] = original[v];
          continue;
        }
        ambiguous += duplicated.count(point_key(p));
        auto [it, added] = at.try_emplace(point_key(p), uint32_t(points.size()));
        if (added) points.push_back(p);
        of_vertex[v] = it->second;
      }
    // Only the point stream tells copies of a point apart (a tool that split vertices, Blender,
    // drops it): say so where a polygon may now name another copy than it did.
    if (ambiguous)
      diags_.add(warning("", fmt::format("mesh {}: {} vertices have no recorded PIE point and sit on points the level "
                                         "has several copies of: each is written against the first copy",
                                         pie_quoted(m.name), ambiguous)));
    return {std::move(points), std::move(of_vertex)};
  }

  void mesh_level(size_t i, const Level& l) {
    const Mesh& m = scene_.meshes[size_t(l.mesh)];
    const PieLevel* pl = l.pie;
    auto [points, of_vertex] = level_points(m, pl);
    points_block(points);
    const VertexStream* normals = m.find(Attribute::Normal);
    if (normals && normals->components < 3) normals = nullptr;
    bool want_normals = pl ? pl->normals : normals != nullptr;
    if (want_normals && !normals)
      diags_.add(warning("", fmt::format("level {} had NORMALS but mesh {} has no normals: left out", i + 1,
                                         pie_quoted(m.name))));
    size_t count = m.triangles.size() / 3;
    if (want_normals && normals) {
      for (float v : normals->data)
        if (!std::isfinite(v)) fail("", fmt::format("mesh {}: a normal is not finite", pie_quoted(m.name)));
      out_ += fmt::format("NORMALS {}\n", count);
      for (size_t t = 0; t < count; ++t) {
        data_line();
        for (size_t c : {0, 2, 1}) {
          uint32_t v = m.triangles[t * 3 + c];
          for (float x : scene_to_point({normals->get(v, 0), normals->get(v, 1), normals->get(v, 2)})) put(x);
        }
        end_line();
      }
    }
    polygons(i, l, of_vertex);
  }

  // PIE 2: texture units to integers out of 256.
  struct Rounding {
    size_t count = 0;
    double worst = 0;
  };
  // A frame size is positive in every version: in PIE 2 it is at least one step.
  void put_uv(float v, Rounding& r, bool frame_size = false) {
    if (version_ != 2) return put(v);
    double scaled = std::round(double(v) * 256.0);
    if (frame_size) scaled = std::max(scaled, 1.0);
    double moved = std::fabs(scaled / 256.0 - double(v));
    if (moved > 1.0 / 65536) {
      ++r.count;
      r.worst = std::max(r.worst, moved);
    }
    put(int64_t(std::clamp(scaled, -9.0e18, 9.0e18)));
  }

  void polygons(size_t i, const Level& l, const std::vector<uint32_t>& of_vertex) {
    const Mesh& m = scene_.meshes[size_t(l.mesh)];
    size_t count = m.triangles.size() / 3;
    const std::vector<PiePolygon> polys = mesh_polygons(m);
    const bool flags = !polys.empty();
    if (!flags && (l.pie || m.find_channel(kFlagsChannel)))
      diags_.add(warning("", fmt::format("level {}: the polygon flags of mesh {} (face channel \"{}\") do not match "
                                         "its triangles: every polygon written as 200",
                                         i + 1, pie_quoted(m.name), kFlagsChannel)));
    const VertexStream* uv = m.find(Attribute::Texcoord);
    if (!uv || uv->components == 0) {
      uv = nullptr;
      diags_.add(warning("", fmt::format("mesh {} has no texture coordinates: written as 0 0", pie_quoted(m.name))));
    }
    if (uv)
      for (float v : uv->data)
        if (!std::isfinite(v)) fail("", fmt::format("mesh {}: a texture coordinate is not finite", pie_quoted(m.name)));
    Rounding rounding;
    out_ += fmt::format("POLYGONS {}\n", count);
    for (size_t t = 0; t < count; ++t) {
      PiePolygon p = flags ? polys[t] : PiePolygon{};
      data_line();
      put_hex(p.flags);
      put(int64_t(3));
      for (size_t c : {0, 2, 1}) put(int64_t(of_vertex[m.triangles[t * 3 + c]]));
      if (p.flags & kTexAnim) {
        if (p.anim_frames < 1 || p.anim_rate < 1 || !(p.anim_width > 0) || !(p.anim_height > 0) ||
            !std::isfinite(p.anim_width) || !std::isfinite(p.anim_height))
          fail("", fmt::format("mesh {}, polygon {}: texture animation of {} frames at rate {}, frame size {} x {}: "
                               "frames and rate must be at least 1 and the size positive",
                               pie_quoted(m.name), t, p.anim_frames, p.anim_rate, p.anim_width, p.anim_height));
        put(int64_t(p.anim_frames));
        put(int64_t(p.anim_rate));
        put_uv(p.anim_width, rounding, true);
        put_uv(p.anim_height, rounding, true);
      }
      for (size_t c : {0, 2, 1}) {
        uint32_t v = m.triangles[t * 3 + c];
        put_uv(uv ? uv->get(v, 0) : 0.0f, rounding);
        put_uv(uv ? uv->get(v, 1) : 0.0f, rounding);
      }
      end_line();
    }
    if (rounding.count)
      diags_.add(warning("", fmt::format("level {}: {} texture coordinates or frame sizes move by up to {:.6f} when "
                                         "rounded to PIE 2's steps of 1/256",
                                         i + 1, rounding.count, rounding.worst)));
  }

  void shadows(const PieLevel& pl) {
    if (pl.has_shadow_points) {
      out_ += fmt::format("SHADOWPOINTS {}\n", pl.shadow_points.size());
      for (const Point& p : pl.shadow_points) {
        data_line();
        for (float v : p) put(v);
        end_line();
      }
    }
    if (pl.has_shadow_polygons) {
      out_ += fmt::format("SHADOWPOLYGONS {}\n", pl.shadow_polygons.size());
      for (const auto& p : pl.shadow_polygons) {
        data_line();
        put(int64_t(0));
        put(int64_t(3));
        for (uint32_t k : p) put(int64_t(k));
        end_line();
      }
    }
  }

  // ---- Connectors ----------------------------------------------------------------------------
  // The level of an attachment: the one of its mesh, else the one animated by its joint, else
  // none (-1).
  int32_t attachment_level(const Attachment& a) const {
    for (size_t i = 0; i < levels_.size(); ++i)
      if (a.mesh >= 0 && levels_[i].mesh == a.mesh) return int32_t(i);
    if (a.mesh >= 0) return -1;
    for (size_t i = 0; i < levels_.size(); ++i) {
      const Level& l = levels_[i];
      int32_t joint = l.joint >= 0 ? l.joint : l.pie ? l.pie->joint : -1;
      if (a.joint >= 0 && joint == a.joint) return int32_t(i);
    }
    return from_pie_ ? empty_level_by_name(a.name) : -1;
  }

  // A connector of an empty PIE level has neither mesh nor joint: its name
  // "<model>_level<n>_connector<k>" tells the level.
  int32_t empty_level_by_name(std::string_view name) const {
    size_t at = name.rfind("_level");
    size_t con = name.rfind("_connector");
    if (at == std::string_view::npos || con == std::string_view::npos || con < at) return -1;
    size_t n = 0;
    auto r = std::from_chars(name.data() + at + 6, name.data() + con, n);
    if (r.ec != std::errc() || r.ptr != name.data() + con || n < 1 || n > levels_.size()) return -1;
    const Level& l = levels_[n - 1];
    return l.mesh < 0 && l.pie ? int32_t(n - 1) : -1;
  }

  void place_attachments() {
    connectors_.assign(levels_.size(), {});
    for (size_t k = 0; k < scene_.attachments.size(); ++k) {
      const Attachment& a = scene_.attachments[k];
      int32_t i = attachment_level(a);
      if (i < 0) {
        diags_.add(warning("", fmt::format("attachment {} belongs to no level: written as a connector of level 1",
                                           pie_quoted(a.name))));
        i = 0;
      }
      const Transform& t = a.transform;
      if (t.rotation != Transform().rotation || t.scale != Transform().scale)
        diags_.add(warning("", fmt::format("attachment {}: its rotation and scale are left out (PIE connectors are "
                                           "points)",
                                           pie_quoted(a.name))));
      connectors_[size_t(i)].push_back(k);
    }
  }

  // Model-space rest position of an attachment.
  Point attachment_position(const Attachment& a) const {
    std::vector<int32_t> chain = chain_of(scene_, a.joint);
    if (chain.empty()) return a.transform.translation;
    if (chain.size() == 1 && scene_.joints[size_t(chain[0])].rest == Transform{}) return a.transform.translation;
    Mat3x4 world = chain_matrix(chain, [&](int32_t j) -> const Transform& { return scene_.joints[size_t(j)].rest; });
    return mat_apply(world, a.transform.translation);
  }

  void connectors(size_t i) {
    const std::vector<size_t>& list = connectors_[i];
    if (list.empty()) return;
    out_ += fmt::format("CONNECTORS {}\n", list.size());
    for (size_t k : list) {
      data_line();
      for (float v : scene_to_connector(attachment_position(scene_.attachments[k]))) put(v);
      end_line();
    }
  }

  // ---- ANIMOBJECT ----------------------------------------------------------------------------
  // The kept frames when some animation still poses the level's joint exactly as they do, at
  // their time and cycles.
  // `differing`: of the animations at the kept time, cycles and frame count, the fewest frames
  // that differ (SIZE_MAX when none is).
  bool raw_still_matches(const PieLevel& pl, int32_t joint, size_t& differing, const Animation** closest) const {
    const PieAnimObject& ao = pl.animobject;
    differing = SIZE_MAX;
    *closest = nullptr;
    if (joint < 0 || joint != pl.joint || size_t(joint) >= scene_.joints.size()) return false;
    const Joint& j = scene_.joints[size_t(joint)];
    if (j.parent != -1 || !(j.rest == Transform{})) return false;
    for (const Animation& a : scene_.animations) {
      if (a.channels <= size_t(joint) || a.frame_count() != ao.frames.size()) continue;
      if (frame_time(a.framerate) != ao.time || a.loop != (ao.cycles == 0)) continue;
      size_t off = 0;
      for (size_t f = 0; f < ao.frames.size(); ++f) off += !same_pose(pose_at(a, f, joint), frame_to_scene(ao.frames[f]));
      if (off < differing) differing = off, *closest = &a;
      if (off == 0) return true;
    }
    return false;
  }

  // The first animation that moves the joint (or one of its ancestors) away from its rest.
  const Animation* animation_moving(const std::vector<int32_t>& chain) const {
    for (const Animation& a : scene_.animations) {
      if (!covers(a, chain)) continue;
      for (size_t f = 0; f < a.frame_count(); ++f)
        for (int32_t k : chain)
          if (!(pose_at(a, f, k) == scene_.joints[size_t(k)].rest)) return &a;
    }
    return nullptr;
  }

  static int32_t thousandths(double v, std::string_view what) {
    double r = std::round(v * 1000.0);
    if (!(std::fabs(r) <= 2147483647.0))
      fail("", fmt::format("an animation {} of {} does not fit ANIMOBJECT's integers", what, v));
    return int32_t(r);
  }

  // One ANIMOBJECT frame of a Scene pose (the inverse of frame_to_scene).
  static PieAnimFrame frame_of(const Transform& t, int32_t number) {
    PieAnimFrame f;
    f.frame = number;
    const auto& p = t.translation;
    f.position = {thousandths(p[0], "position"), thousandths(-double(p[2]), "position"),
                  thousandths(p[1], "position")};
    Vec3 e = ops::euler_xyz_from_quat(t.rotation);
    f.rotation = {thousandths(e[0], "angle"), thousandths(-double(e[2]), "angle"), thousandths(e[1], "angle")};
    if (t.scale == std::array<float, 3>{0, 0, 0})
      f.scale = {-1, -1, -1};
    else
      f.scale = t.scale;
    return f;
  }

  // Derived ANIMOBJECT: the joint's motion relative to its rest, frame by frame.
  bool derive(int32_t joint, PieAnimObject& out) const {
    std::vector<int32_t> chain = chain_of(scene_, joint);
    if (chain.empty()) return false;
    const Animation* a = animation_moving(chain);
    if (!a) return false;
    out.time = frame_time(a->framerate);
    out.cycles = a->loop ? 0 : 1;
    const Joint& j = scene_.joints[size_t(joint)];
    bool plain = chain.size() == 1 && j.rest == Transform{};
    Mat3x4 inv_rest = mat_inverse(chain_matrix(chain, [&](int32_t k) -> const Transform& {
      return scene_.joints[size_t(k)].rest;
    }));
    for (size_t f = 0; f < a->frame_count(); ++f) {
      Transform t;
      if (plain) {
        t = pose_at(*a, f, joint);
      } else {
        Mat3x4 world = chain_matrix(chain, [&](int32_t k) -> const Transform& { return pose_at(*a, f, k); });
        t = decompose(mat_mul(world, inv_rest));
      }
      out.frames.push_back(frame_of(t, int32_t(f)));
    }
    return true;
  }

  // The kept frames where the animation (at their time, cycles and frame count; the joint a root
  // with identity rest) still poses the joint as they do, the animation's pose elsewhere.
  static PieAnimObject mixed(const PieAnimObject& kept, const Animation& a, int32_t joint) {
    PieAnimObject out = kept;
    for (size_t f = 0; f < kept.frames.size(); ++f) {
      const Transform& p = pose_at(a, f, joint);
      if (!same_pose(p, frame_to_scene(kept.frames[f]))) out.frames[f] = frame_of(p, kept.frames[f].frame);
    }
    return out;
  }

  // The kept ANIMOBJECT frames are not written (issue 32: never silently): the level, how many
  // frames changed, and the frame rate at which Blender keeps them (its scene rate when importing:
  // at another rate it samples the motion between the file's keys).
  void warn_changed_animobject(size_t i, const PieAnimObject& kept, size_t differing, const PieAnimObject* now) {
    const double fps = 1000.0 / double(std::max(kept.time, 1));
    std::string what;
    std::string written;
    if (differing != SIZE_MAX) {
      what = fmt::format("{} of its {} frames differ from the file's kept frames", differing, kept.frames.size());
      written = fmt::format("those written from the animation, the other {} as kept", kept.frames.size() - differing);
    } else {
      what = fmt::format("no animation has the file's {} frames at {} ms", kept.frames.size(), kept.time);
      written = now ? fmt::format("written from the animation ({} frames at {} ms)", now->frames.size(), now->time)
                    : std::string("not written (no animation moves the level)");
    }
    diags_.add(warning("", fmt::format("level {}: ANIMOBJECT: {}: {}; edited, or re-sampled at another frame rate "
                                       "(Blender samples at its scene frame rate: set the scene to {:g} fps before "
                                       "importing to keep the file's keys)",
                                       i + 1, what, written, fps)));
  }

  void animobject(size_t i, const Level& l) {
    const PieLevel* pl = l.pie;
    PieAnimObject derived;
    const PieAnimObject* ao = nullptr;
    size_t differing = SIZE_MAX;
    const Animation* closest = nullptr;
    if (pl && pl->has_animobject && (l.mesh < 0 || raw_still_matches(*pl, l.joint, differing, &closest)))
      ao = &pl->animobject;
    else if (closest)
      ao = &(derived = mixed(pl->animobject, *closest, l.joint));
    else if (l.joint >= 0 && derive(l.joint, derived))
      ao = &derived;
    if (pl && pl->has_animobject && ao != &pl->animobject) warn_changed_animobject(i, pl->animobject, differing, ao);
    if (!ao) return;
    out_ += fmt::format("ANIMOBJECT {} {} {}\n", ao->time, ao->cycles, ao->frames.size());
    for (const PieAnimFrame& f : ao->frames) {
      data_line();
      put(int64_t(f.frame));
      for (int32_t v : f.position) put(int64_t(v));
      for (int32_t v : f.rotation) put(int64_t(v));
      for (float v : f.scale) put(v);
      end_line();
    }
  }
};

}  // namespace

std::string write(const Scene& scene, const WriteOptions& options, Diagnostics& diags) {
  return Writer(scene, options, diags).write();
}

}  // namespace meshport::pie
