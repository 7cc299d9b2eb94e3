// Small JSON readers shared by the glTF code (gltf_json.h).
#include "formats/shared/gltf_json.h"

#include "formats/shared/base64.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

namespace meshport::gltf::json_util {

[[noreturn]] void bad(const std::string& path, std::string_view msg) { fail("", fmt::format("{}: {}", path, msg)); }

std::string sub(const std::string& path, std::string_view key) { return fmt::format("{}.{}", path, key); }
std::string sub(const std::string& path, size_t i) { return fmt::format("{}[{}]", path, i); }

const json* field(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

const json& object(const json& v, const std::string& path) {
  if (!v.is_object()) bad(path, fmt::format("is {}, not an object", v.type_name()));
  return v;
}

const json& array(const json& v, const std::string& path, size_t size) {
  if (!v.is_array()) bad(path, fmt::format("is {}, not an array", v.type_name()));
  if (size && v.size() != size) bad(path, fmt::format("has {} entries, not {}", v.size(), size));
  return v;
}

int64_t integer(const json& v, const std::string& path, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(hi) && int64_t(v.get<uint64_t>()) >= lo)
    return int64_t(v.get<uint64_t>());
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi)
    return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == std::floor(d) && d >= double(lo) && d <= double(hi)) return int64_t(d);
  }
  bad(path, fmt::format("{} is not an integer in {}..{}", v.dump(), lo, hi));
}

int32_t int32(const json& v, const std::string& path) {
  return int32_t(integer(v, path, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

float narrow(double d) {
  if (d > double(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
  if (d < -double(std::numeric_limits<float>::max())) return -std::numeric_limits<float>::infinity();
  return float(d);
}

float nearest_float(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kOverflow = 0x1p128 - 0x1p103;  // halfway between the largest float and 2^128
  if (std::fabs(d) <= kMax) return float(d);
  const float inf = std::numeric_limits<float>::infinity();
  if (std::fabs(d) >= kOverflow) return d > 0 ? inf : -inf;
  return d > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
}

namespace {

// The float of a value that is not a number: "NaN", "Infinity" or "-Infinity", else an error.
float special_float(const json& v, const std::string& path) {
  if (v == "NaN") return std::numeric_limits<float>::quiet_NaN();
  if (v == "Infinity") return std::numeric_limits<float>::infinity();
  if (v == "-Infinity") return -std::numeric_limits<float>::infinity();
  bad(path, fmt::format("{} is not a number", v.dump()));
}

}  // namespace

float to_float_narrow(const json& v, const std::string& path) {
  if (v.is_number()) return narrow(v.get<double>());  // values written from floats are exact
  return special_float(v, path);
}

float to_float_nearest(const json& v, const std::string& path) {
  if (v.is_number()) return nearest_float(v.get<double>());  // values written from floats read back exactly
  return special_float(v, path);
}

bool to_bool(const json& v, const std::string& path) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number() && (v.get<double>() == 0 || v.get<double>() == 1)) return v.get<double>() == 1;
  bad(path, fmt::format("{} is not a boolean", v.dump()));
}

std::string to_string(const json& v, const std::string& path) {
  if (v.is_string()) return v.get<std::string>();
  const json* b = field(v, "base64");
  std::vector<uint8_t> bytes;
  if (!b || !b->is_string() || base64_decode(b->get<std::string>(), bytes) != std::string_view::npos)
    bad(path, "is not a string or {\"base64\": string}");
  return std::string(bytes.begin(), bytes.end());
}

json jstring(const std::string& s) {
  if (valid_utf8(s)) return s;
  return {{"base64", base64_encode(reinterpret_cast<const uint8_t*>(s.data()), s.size())}};
}

}  // namespace meshport::gltf::json_util
