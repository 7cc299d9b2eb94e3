// The WebAssembly build's std::to_chars / std::from_chars of float and double
// (wasm/compat/charconv.cpp; Emscripten's libc++ lacks them), compiled here natively in a
// namespace of their own and compared with GCC's libstdc++, which the native builds use: the same
// text and the same results for edge cases and a million values of every magnitude.
#define MESHPORT_CHARCONV_NAMESPACE wasm_compat
#include "../wasm/compat/charconv.cpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace meshport_test_wasm_charconv {

namespace {

template <class T>
std::string native_shortest(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
template <class T>
std::string compat_shortest(T v) {
  char buf[64];
  auto r = wasm_compat::to_chars(buf, buf + sizeof buf, v);
  EXPECT_EQ(r.ec, std::errc());
  return std::string(buf, r.ptr);
}
template <class T>
std::string native_precision(T v, std::chars_format f, int p) {
  char buf[512];
  auto r = std::to_chars(buf, buf + sizeof buf, v, f, p);
  return std::string(buf, r.ptr);
}
template <class T>
std::string compat_precision(T v, std::chars_format f, int p) {
  char buf[512];
  auto r = wasm_compat::to_chars(buf, buf + sizeof buf, v, f, p);
  return std::string(buf, r.ptr);
}

template <class T, class Bits>
T from_bits(Bits b) {
  return std::bit_cast<T>(b);
}

// Values of every exponent: random bit patterns, integers, powers of two and ten, near them.
template <class T, class Bits>
std::vector<T> samples(size_t random_count) {
  std::vector<T> v = {T(0), -T(0), T(1), T(0.1), T(1e7), T(16777216), T(123456789), T(1e15), T(1e16), T(1e17),
                      T(1e21), T(1e22), T(1e23), T(3e-5), T(1e-5), T(1e-4), T(0.001), T(123.456), T(-2.5),
                      std::numeric_limits<T>::max(), std::numeric_limits<T>::min(),
                      std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::lowest(),
                      std::numeric_limits<T>::epsilon()};
  for (int e = -40; e <= 40; ++e) {
    const T p = std::pow(T(10), T(e));
    v.insert(v.end(), {p, std::nextafter(p, T(0)), std::nextafter(p, T(1e30)), T(3) * p, T(7) * p});
  }
  for (int e = -150; e < 130; ++e) v.push_back(std::ldexp(T(1), e));
  std::mt19937_64 rng(20261128);
  for (size_t i = 0; i < random_count; ++i) {
    const T r = from_bits<T>(Bits(rng()));
    if (std::isfinite(r)) v.push_back(r);
    v.push_back(T(int64_t(rng() >> (rng() % 64))));  // integers of every size
    v.push_back(T(rng() % 100000) / T(1000));        // short decimals
  }
  return v;
}

template <class T, class Bits>
void check_shortest(size_t count) {
  size_t mismatches = 0;
  for (T v : samples<T, Bits>(count)) {
    const std::string n = native_shortest(v), c = compat_shortest(v);
    if (n != c && ++mismatches <= 10) ADD_FAILURE() << "value bits " << std::bit_cast<Bits>(v) << ": libstdc++ " << n << ", compat " << c;
    T back{};
    auto r = wasm_compat::from_chars(c.data(), c.data() + c.size(), back, std::chars_format::general);
    ASSERT_EQ(r.ec, std::errc()) << c;
    ASSERT_EQ(r.ptr, c.data() + c.size()) << c;
    ASSERT_EQ(std::bit_cast<Bits>(back), std::bit_cast<Bits>(v)) << c;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(WasmCharconv, ShortestFloatAsLibstdcxx) { check_shortest<float, uint32_t>(200000); }
TEST(WasmCharconv, ShortestDoubleAsLibstdcxx) { check_shortest<double, uint64_t>(200000); }

TEST(WasmCharconv, SpecialValues) {
  for (double v : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(compat_shortest(v), native_shortest(v));
    EXPECT_EQ(compat_shortest(float(v)), native_shortest(float(v)));
  }
  EXPECT_EQ(compat_shortest(123456792.0f), "123456792");  // an integer written fixed: exactly
  EXPECT_EQ(compat_shortest(-0.0), "-0");
  char small[3];
  EXPECT_EQ(wasm_compat::to_chars(small, small + sizeof small, 1234.5).ec, std::errc::value_too_large);
}

TEST(WasmCharconv, PrecisionAsLibstdcxx) {
  for (double v : samples<double, uint64_t>(2000))
    for (int p : {0, 1, 3, 6, 9, 17})
      for (std::chars_format f : {std::chars_format::general, std::chars_format::scientific}) {
        ASSERT_EQ(compat_precision(v, f, p), native_precision(v, f, p)) << v << " precision " << p;
        ASSERT_EQ(compat_precision(float(v), f, p), native_precision(float(v), f, p)) << v << " precision " << p;
      }
}

// Texts from_chars reads (or refuses) as libstdc++ does: the value, the end, the error.
TEST(WasmCharconv, ReadingAsLibstdcxx) {
  const std::vector<std::string> texts = {
      "0", "-0", "1", "1.5", "-2.25e3", ".5", "5.", "1e", "1e+", "1e-2x", "+1", " 1", "", "-", ".", "e5", "1.2.3",
      "1e400", "-1e400", "1e-400", "2.4e-324", "4.9e-324", "3e-45", "1e-46", "1.17549435e-38", "3.4028236e38",
      "inf", "-INF", "infinity", "infinit", "nan", "NaN(123)", "nan(", "nanx", "0x10", "00012", "1234567890123456789012345",
      "0.000000000000000000000000000000000000000000001", "123456789e-5", "9007199254740993", "1E5", "1e05"};
  for (const std::string& t : texts) {
    for (std::chars_format f : {std::chars_format::general, std::chars_format::fixed, std::chars_format::scientific}) {
      double nd = 42, cd = 42;
      auto nr = std::from_chars(t.data(), t.data() + t.size(), nd, f);
      auto cr = wasm_compat::from_chars(t.data(), t.data() + t.size(), cd, f);
      EXPECT_EQ(cr.ec, nr.ec) << '"' << t << "\" format " << int(f);
      EXPECT_EQ(cr.ptr - t.data(), nr.ptr - t.data()) << '"' << t << "\" format " << int(f);
      if (!std::isnan(nd)) {
        EXPECT_EQ(std::bit_cast<uint64_t>(cd), std::bit_cast<uint64_t>(nd)) << '"' << t << '"';
      }
      float nf = 42, cf = 42;
      nr = std::from_chars(t.data(), t.data() + t.size(), nf, f);
      cr = wasm_compat::from_chars(t.data(), t.data() + t.size(), cf, f);
      EXPECT_EQ(cr.ec, nr.ec) << '"' << t << "\" (float) format " << int(f);
      EXPECT_EQ(cr.ptr - t.data(), nr.ptr - t.data()) << '"' << t << "\" (float)";
      if (!std::isnan(nf)) {
        EXPECT_EQ(std::bit_cast<uint32_t>(cf), std::bit_cast<uint32_t>(nf)) << '"' << t << "\" (float)";
      }
    }
  }
}

}  // namespace

}  // namespace meshport_test_wasm_charconv
