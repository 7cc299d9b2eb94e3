// meshport: IQM data the canonical Scene cannot hold (docs/iqe-iqm.md), kept as Scene::iqm.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace meshport {


// Format-specific data that no other format expresses, kept so the source format round-trips.
struct IqmExtension {
  std::string name;
  std::vector<uint8_t> data;
  bool operator==(const IqmExtension&) const = default;
};

struct IqmData {
  std::vector<IqmExtension> extensions;
  std::vector<int32_t> pose_parents;  // animation-only files: the parents their poses name
  bool operator==(const IqmData&) const = default;
};

}  // namespace meshport
