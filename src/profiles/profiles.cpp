// The profile table and the dispatch of check_profile (include/meshport/profiles.h). Each
// profile's rules and checks live in src/profiles/<name>.cpp.
#include <meshport/profiles.h>

#include "profiles/profile_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace meshport {

namespace profiles_detail {

void Report::operator()(std::string_view rule_id, std::string_view message) const {
  Severity severity = Severity::Error;  // a rule missing from the table is a bug: never silent
  for (const ProfileRule& r : profile.rules)
    if (r.id == rule_id) severity = r.severity;
  Diagnostic d;
  d.severity = severity;
  d.file = file;
  d.message = fmt::format("[{}] {}", rule_id, message);
  diags.add(std::move(d));
}

}  // namespace profiles_detail

const std::vector<ProfileInfo>& profiles() {
  static const std::vector<ProfileInfo> table{profiles_detail::wz2100_profile(),
                                              profiles_detail::iqm_engines_profile()};
  return table;
}

static bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

const ProfileInfo* find_profile(std::string_view name) {
  for (const ProfileInfo& p : profiles())
    if (same_name(p.name, name)) return &p;
  return nullptr;
}

void check_profile(const ProfileInfo& profile, const Scene& scene, const std::string& file, Diagnostics& diags) {
  const profiles_detail::Report report{profile, file, diags};
  if (profile.name == "wz2100") profiles_detail::check_wz2100(scene, report);
  else if (profile.name == "iqm-engines") profiles_detail::check_iqm_engines(scene, report);
}

}  // namespace meshport
