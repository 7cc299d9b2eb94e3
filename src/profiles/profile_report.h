// Shared by the profile checks (src/profiles/*.cpp): how a broken rule becomes a diagnostic.
#pragma once

#include <meshport/profiles.h>

#include <string>
#include <string_view>

namespace meshport::profiles_detail {

// Adds "[<rule id>] <message>" to the diagnostics with the rule's severity (from the profile's
// table, so the table is the one place that decides it), naming the file.
struct Report {
  const ProfileInfo& profile;
  const std::string& file;
  Diagnostics& diags;

  void operator()(std::string_view rule_id, std::string_view message) const;
};

// The table and the check of each profile (one file per profile).
ProfileInfo wz2100_profile();
void check_wz2100(const Scene& scene, const Report& report);
ProfileInfo iqm_engines_profile();
void check_iqm_engines(const Scene& scene, const Report& report);

}  // namespace meshport::profiles_detail
