#include "ops/mesh/components.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace meshport::ops {

static_assert(std::endian::native == std::endian::little, "meshport assumes a little-endian host");

size_t component_size(ComponentType t) {
  switch (t) {
    case ComponentType::Byte:
    case ComponentType::UByte:
      return 1;
    case ComponentType::Short:
    case ComponentType::UShort:
    case ComponentType::Half:
      return 2;
    case ComponentType::Int:
    case ComponentType::UInt:
    case ComponentType::Float:
      return 4;
    case ComponentType::Double:
      return 8;
  }
  return 4;
}

const char* component_name(ComponentType t) {
  switch (t) {
    case ComponentType::Byte:
      return "byte";
    case ComponentType::UByte:
      return "ubyte";
    case ComponentType::Short:
      return "short";
    case ComponentType::UShort:
      return "ushort";
    case ComponentType::Int:
      return "int";
    case ComponentType::UInt:
      return "uint";
    case ComponentType::Half:
      return "half";
    case ComponentType::Float:
      return "float";
    case ComponentType::Double:
      return "double";
  }
  return "?";
}

bool is_integer(ComponentType t) { return t <= ComponentType::UInt; }

double integer_max(ComponentType t) {
  switch (t) {
    case ComponentType::Byte:
      return 127;
    case ComponentType::UByte:
      return 255;
    case ComponentType::Short:
      return 32767;
    case ComponentType::UShort:
      return 65535;
    case ComponentType::Int:
      return 2147483647.0;
    case ComponentType::UInt:
      return 4294967295.0;
    default:
      return 0;
  }
}

double integer_min(ComponentType t) {
  switch (t) {
    case ComponentType::Byte:
      return -128;
    case ComponentType::Short:
      return -32768;
    case ComponentType::Int:
      return -2147483648.0;
    default:
      return 0;
  }
}

double max_exact_integer(ComponentType t) {
  switch (t) {
    case ComponentType::Half:
      return 2048;
    case ComponentType::Float:
      return 16777216.0;
    case ComponentType::Double:
      return 9007199254740992.0;
    default:
      return integer_max(t);
  }
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  if (exp == 0) {
    float f = float(man) * 0x1p-24f;  // zero or subnormal: man * 2^-24, exact
    return sign ? -f : f;
  }
  uint32_t bits = exp == 31 ? (sign | 0x7F800000u | (man << 13)) : (sign | ((exp + 112) << 23) | (man << 13));
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return uint16_t(sign | 0x7E00u | ((ax >> 13) & 0x3FFu));  // NaN stays a (quiet) NaN
  if (ax == 0x7F800000u) return uint16_t(sign | 0x7C00u);
  if (ax < 0x38800000u) {  // below 2^-14, the smallest normal half: a subnormal or zero
    uint32_t e = ax >> 23;
    if (e < 102) return sign;  // below 2^-25: rounds to zero
    uint32_t m = (ax & 0x7FFFFFu) | 0x800000u;
    uint32_t shift = 126 - e;  // half subnormal = m * 2^(e - 126), shift 14..24
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    return uint16_t(sign | q);
  }
  uint32_t r = ax - (112u << 23);  // rebias the exponent from 127 to 15
  r += 0xFFFu + ((r >> 13) & 1u);  // round to nearest even on the 13 dropped bits
  uint32_t h = r >> 13;
  if (h >= 0x7C00u) return uint16_t(sign | 0x7C00u);
  return uint16_t(sign | h);
}

namespace {

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void decode_int(const uint8_t* src, size_t n, float* dst, bool normalized) {
  if (!normalized) {
    for (size_t i = 0; i < n; ++i) dst[i] = float(load<T>(src + i * sizeof(T)));
    return;
  }
  if constexpr (sizeof(T) <= 2) {
    const float m = float(std::numeric_limits<T>::max());
    for (size_t i = 0; i < n; ++i) {
      float v = float(load<T>(src + i * sizeof(T))) / m;
      if constexpr (std::is_signed_v<T>) v = std::max(v, -1.0f);
      dst[i] = v;
    }
  } else {
    const double m = double(std::numeric_limits<T>::max());
    for (size_t i = 0; i < n; ++i) {
      double v = double(load<T>(src + i * sizeof(T))) / m;
      if constexpr (std::is_signed_v<T>) v = std::max(v, -1.0);
      dst[i] = float(v);
    }
  }
}

template <class T>
void encode_int(const float* src, size_t n, uint8_t* dst, bool normalized, EncodeStats& stats) {
  const double hi = double(std::numeric_limits<T>::max());
  const double lo = normalized ? (std::is_signed_v<T> ? -hi : 0.0) : double(std::numeric_limits<T>::min());
  const double scale = normalized ? hi : 1.0;
  for (size_t i = 0; i < n; ++i) {
    const double d = double(src[i]) * scale;
    T out = 0;
    if (d > lo - 0.5 && d < hi + 0.5) {  // rounds into the range (half away from zero)
      out = T(int64_t(d >= 0 ? d + 0.5 : d - 0.5));
    } else if (std::isnan(d)) {
      ++stats.nan;
    } else {
      out = T(d < lo ? lo : hi);
      ++stats.clamped;
    }
    std::memcpy(dst + i * sizeof(T), &out, sizeof(T));
  }
}

}  // namespace

void decode(ComponentType t, bool normalized, const uint8_t* src, size_t count, float* dst) {
  switch (t) {
    case ComponentType::Byte:
      return decode_int<int8_t>(src, count, dst, normalized);
    case ComponentType::UByte:
      return decode_int<uint8_t>(src, count, dst, normalized);
    case ComponentType::Short:
      return decode_int<int16_t>(src, count, dst, normalized);
    case ComponentType::UShort:
      return decode_int<uint16_t>(src, count, dst, normalized);
    case ComponentType::Int:
      return decode_int<int32_t>(src, count, dst, normalized);
    case ComponentType::UInt:
      return decode_int<uint32_t>(src, count, dst, normalized);
    case ComponentType::Half:
      for (size_t i = 0; i < count; ++i) dst[i] = half_to_float(load<uint16_t>(src + i * 2));
      return;
    case ComponentType::Float:
      if (count) std::memcpy(dst, src, count * 4);
      return;
    case ComponentType::Double:
      for (size_t i = 0; i < count; ++i) dst[i] = float(load<double>(src + i * 8));
      return;
  }
}

void decode_strided(ComponentType t, bool normalized, const uint8_t* src, size_t groups, uint32_t size, float* dst,
                    uint32_t dst_stride) {
  if (size == dst_stride) return decode(t, normalized, src, groups * size, dst);
  const size_t step = component_size(t) * size;
  for (size_t g = 0; g < groups; ++g) decode(t, normalized, src + g * step, size, dst + g * dst_stride);
}

float decode_one(ComponentType t, bool normalized, const uint8_t* src) {
  float v = 0;
  decode(t, normalized, src, 1, &v);
  return v;
}

void encode(ComponentType t, bool normalized, const float* src, size_t count, uint8_t* dst, EncodeStats& stats) {
  switch (t) {
    case ComponentType::Byte:
      return encode_int<int8_t>(src, count, dst, normalized, stats);
    case ComponentType::UByte:
      return encode_int<uint8_t>(src, count, dst, normalized, stats);
    case ComponentType::Short:
      return encode_int<int16_t>(src, count, dst, normalized, stats);
    case ComponentType::UShort:
      return encode_int<uint16_t>(src, count, dst, normalized, stats);
    case ComponentType::Int:
      return encode_int<int32_t>(src, count, dst, normalized, stats);
    case ComponentType::UInt:
      return encode_int<uint32_t>(src, count, dst, normalized, stats);
    case ComponentType::Half:
      for (size_t i = 0; i < count; ++i) {
        float v = src[i];
        if (std::isfinite(v) && std::fabs(v) > 65504.0f) {
          uint16_t h = float_to_half(v);
          if ((h & 0x7FFFu) == 0x7C00u) {  // the rounding overflowed: clamp to the largest half
            v = v > 0 ? 65504.0f : -65504.0f;
            ++stats.clamped;
          }
        }
        uint16_t h = float_to_half(v);
        std::memcpy(dst + i * 2, &h, 2);
      }
      return;
    case ComponentType::Float:
      if (count) std::memcpy(dst, src, count * 4);
      return;
    case ComponentType::Double:
      for (size_t i = 0; i < count; ++i) {
        double d = src[i];
        std::memcpy(dst + i * 8, &d, 8);
      }
      return;
  }
}

}  // namespace meshport::ops
