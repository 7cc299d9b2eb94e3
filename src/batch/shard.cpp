// Sharding a batch: parse_shard() and shard_of() (batch.h, docs/batch.md "Sharding").
#include <meshport/batch.h>

#include <charconv>
#include <cstdlib>
#include <fmt/format.h>

namespace meshport {

namespace {

std::optional<uint32_t> parse_number(std::string_view text) {
  uint32_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

Shard checked(uint32_t index, uint32_t count, const std::string& where) {
  if (count == 0) fail("--shard", fmt::format("{}: the shard count is 0", where));
  if (index >= count)
    fail("--shard", fmt::format("{}: shard {} does not exist: shards are numbered 0 to {}", where, index, count - 1));
  return {index, count};
}

// A variable holding a whole non-negative number, or nullopt when unset; an error when set to
// anything else.
std::optional<uint32_t> number_from(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* v = getenv(name);
  if (!v) return std::nullopt;
  auto n = parse_number(v);
  if (!n) fail("--shard", fmt::format("auto: {}='{}' is not a whole number", name, v));
  return n;
}

Shard shard_from_environment(const std::function<const char*(const char*)>& getenv) {
  if (auto index = number_from(getenv, "JOB_COMPLETION_INDEX")) {
    auto count = number_from(getenv, "MESHPORT_SHARD_COUNT");
    if (!count)
      fail("--shard", "auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but MESHPORT_SHARD_COUNT is "
                      "not: set it to the Job's completions (docs/batch.md)");
    return checked(*index, *count, "auto (Kubernetes)");
  }
  if (auto id = number_from(getenv, "SLURM_ARRAY_TASK_ID")) {
    auto count = number_from(getenv, "SLURM_ARRAY_TASK_COUNT");
    if (!count) fail("--shard", "auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
    const uint32_t min = number_from(getenv, "SLURM_ARRAY_TASK_MIN").value_or(0);
    if (*id < min) fail("--shard", fmt::format("auto: SLURM_ARRAY_TASK_ID {} is below SLURM_ARRAY_TASK_MIN {}", *id, min));
    // An array with a step (--array=0-14:2) numbers its tasks min, min + step, ...
    const uint32_t step = number_from(getenv, "SLURM_ARRAY_TASK_STEP").value_or(1);
    if (step == 0) fail("--shard", "auto: SLURM_ARRAY_TASK_STEP is 0");
    if ((*id - min) % step != 0)
      fail("--shard", fmt::format("auto: SLURM_ARRAY_TASK_ID {} is not SLURM_ARRAY_TASK_MIN {} plus a multiple of "
                                  "SLURM_ARRAY_TASK_STEP {}: submit the array as a range (0-7, or 0-14:2)",
                                  *id, min, step));
    return checked((*id - min) / step, *count, "auto (Slurm)");
  }
  fail("--shard", "auto: neither a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) nor a Slurm job array "
                  "(SLURM_ARRAY_TASK_ID) is in the environment");
}

}  // namespace

Shard parse_shard(std::string_view text, const std::function<const char*(const char*)>& getenv) {
  if (text == "auto") return shard_from_environment(getenv ? getenv : [](const char* n) { return std::getenv(n); });
  const size_t slash = text.find('/');
  auto index = parse_number(text.substr(0, slash == std::string_view::npos ? 0 : slash));
  auto count = slash == std::string_view::npos ? std::nullopt : parse_number(text.substr(slash + 1));
  if (!index || !count) fail("--shard", fmt::format("expects K/N (shard K of N, K from 0) or auto, got '{}'", text));
  return checked(*index, *count, std::string(text));
}

// FNV-1a, 64-bit: stable across platforms and runs (std::hash is neither).
uint32_t shard_of(std::string_view relative_path, uint32_t count) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : relative_path) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return count <= 1 ? 0 : uint32_t(h % count);
}

}  // namespace meshport
