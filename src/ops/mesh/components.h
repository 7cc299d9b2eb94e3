// Component formats (IQM's numbering, also glTF's accessor types): sizes, and decoding and
// encoding of little-endian arrays to and from float.
//
// Rules:
// - normalised unsigned integers decode as v / max (ubyte 255 -> 1.0); normalised signed ones as
//   max(v / max, -1) (byte -127 and -128 -> -1.0). Encoding clamps to [0, 1] / [-1, 1], scales by
//   max and rounds to nearest (halves away from zero).
// - integers that are not normalised (blend indices) keep their value; encoding clamps to the
//   type's range and rounds to nearest.
// - half is IEEE binary16; encoding rounds to nearest even (1e-7 -> 2^-23, not truncated to
//   2^-24). Finite values beyond the half range clamp to +-65504; infinities and NaN are kept.
// - float and double convert as C++ does; NaN stays NaN.
// - integer types cannot hold NaN: it encodes as 0. Every clamp and every NaN encoded as 0 is
//   counted in EncodeStats so that the caller can warn once per array.
#pragma once

#include <meshport/scene.h>

#include <cstddef>
#include <cstdint>

namespace meshport::ops {

size_t component_size(ComponentType t);       // bytes per component: 1 1 2 2 4 4 2 4 8
const char* component_name(ComponentType t);  // "byte" "ubyte" ... "double" (IQM/IQE spelling)
bool is_integer(ComponentType t);             // byte .. uint
double integer_max(ComponentType t);          // 127 255 32767 65535 2^31-1 2^32-1; 0 for non-integers
double integer_min(ComponentType t);          // -128 0 -32768 0 -2^31 0; 0 for non-integers
// Largest integer n such that every integer 0..n is exactly representable (255 for ubyte, 2048
// for half, 2^24 for float).
double max_exact_integer(ComponentType t);

float half_to_float(uint16_t h);
// Round to nearest even; values whose rounding overflows become +-inf (encode() clamps instead).
uint16_t float_to_half(float f);

// Decodes `count` values of type `t` stored little-endian at `src` (any alignment).
void decode(ComponentType t, bool normalized, const uint8_t* src, size_t count, float* dst);
// Decodes `groups` groups of `size` values each, writing group i to dst + i * dst_stride. The
// remaining dst_stride - size floats of each group are left untouched.
void decode_strided(ComponentType t, bool normalized, const uint8_t* src, size_t groups, uint32_t size, float* dst,
                    uint32_t dst_stride);
float decode_one(ComponentType t, bool normalized, const uint8_t* src);

struct EncodeStats {
  size_t clamped = 0;  // values outside the representable range, clamped
  size_t nan = 0;      // NaN values written as 0 (integer types only)
};
// Encodes `count` floats as type `t`, little-endian, at `dst` (any alignment).
void encode(ComponentType t, bool normalized, const float* src, size_t count, uint8_t* dst, EncodeStats& stats);

}  // namespace meshport::ops
