// meshport: engine validation profiles (docs/profiles.md). A profile is the set of limits and
// rules a real engine enforces when it loads a model, each rule with its source and a severity:
// Error when the engine refuses the model, crashes or draws it broken; Warning when it loads but
// something is lost or the engine logs. `meshport validate --profile NAME` runs one over a Scene.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <string>
#include <string_view>
#include <vector>

namespace meshport {

struct ProfileRule {
  std::string_view id;        // "wz2100.polygons-per-level": the profile name, a dot, the rule
  Severity severity = Severity::Error;
  std::string_view text;      // the rule in one line: "at most 8192 polygons per level"
  std::string_view source;    // where the rule comes from (engine file, documentation, spec)
};

struct ProfileInfo {
  std::string_view name;         // "wz2100"
  std::string_view description;  // one line
  std::vector<ProfileRule> rules;
};

// Every profile, in a fixed order ("wz2100", "iqm-engines").
const std::vector<ProfileInfo>& profiles();

// The profile of that name (case-insensitive), or nullptr when there is none.
const ProfileInfo* find_profile(std::string_view name);

// Checks `scene` against `profile`: one diagnostic per broken rule instance, naming `file` (no
// line or offset), with the rule's severity and a message starting with the rule id in brackets:
// "[wz2100.polygons-per-level] level 2 has 9000 polygons; the engine refuses more than 8192".
// Rules apply to whatever the Scene holds, whichever format it came from (docs/profiles.md says
// how). Never throws for a valid Scene.
void check_profile(const ProfileInfo& profile, const Scene& scene, const std::string& file, Diagnostics& diags);

}  // namespace meshport
