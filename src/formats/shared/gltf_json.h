// Small JSON readers shared by the glTF code: the field readers of the meshport extras
// (gltf_pie.cpp, gltf_modedef.cpp) and of the reader (gltf_read*.cpp), and the string writer the
// extras share. A reader's error is "path: message" (meshport::Error without a file name), the
// path being the JSON path of the value ("extras.meshport.pie.levels[2].points").
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace meshport::gltf::json_util {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& path, std::string_view msg);

std::string sub(const std::string& path, std::string_view key);  // "path.key"
std::string sub(const std::string& path, size_t i);              // "path[i]"

// The member `key` of `o`, or null when it has none or `o` is not an object.
const json* field(const json& o, const char* key);

// `v`, when it is an object / an array (of `size` entries, when `size` is not 0).
const json& object(const json& v, const std::string& path);
const json& array(const json& v, const std::string& path, size_t size = 0);

// An integer within [lo, hi]; a floating-point number with an integral value counts (Blender
// writes the integers of a list that also holds floats as floats).
int64_t integer(const json& v, const std::string& path, int64_t lo, int64_t hi);
int32_t int32(const json& v, const std::string& path);

// Two ways to take a double as a float, kept apart as their callers' files pin them:
// narrow: beyond the float range (past the largest float, however little) it is an infinity
// (no undefined cast). The reader and gltf_pie.cpp read numbers this way.
float narrow(double d);
// nearest_float: the nearest float (IEEE round to nearest even): beyond the largest float by
// half a step or more, infinite; less than that, the largest float. gltf_modedef.cpp's.
float nearest_float(double d);

// A float of the extras: a number, or "NaN", "Infinity", "-Infinity"; the number taken by
// narrow (to_float_narrow, gltf_pie.cpp) or by nearest_float (to_float_nearest, gltf_modedef.cpp).
float to_float_narrow(const json& v, const std::string& path);
float to_float_nearest(const json& v, const std::string& path);

// true / false, or 0 / 1 as Blender writes booleans back (its custom properties have none).
bool to_bool(const json& v, const std::string& path);

// A string, or {"base64": string} for one that is not valid UTF-8 (see jstring).
std::string to_string(const json& v, const std::string& path);

// Field reader: an absent key leaves `out` alone (the default).
template <class T, class Convert>
void get(const json& o, const char* key, const std::string& path, T& out, Convert&& convert) {
  if (const json* v = field(o, key)) out = convert(*v, sub(path, key));
}

// A string as the extras write it: as it is when valid UTF-8, else {"base64": its bytes}.
json jstring(const std::string& s);

}  // namespace meshport::gltf::json_util
