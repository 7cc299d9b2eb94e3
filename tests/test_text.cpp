// text::fast_decimal (src/core/text_decimal.h), the number scanner of the IQE, OBJ and PIE readers: every
// number it takes is exactly std::from_chars's, with the same characters consumed; what it leaves
// to from_chars (returns false) leaves `p` alone; and the plain decimals exporters write are
// taken (so the fast path is the one used).
#include <gtest/gtest.h>

#include "core/text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace meshport_test_text {

using namespace meshport;

namespace {

// Checks one text, with `end` at every length from the whole text down to the number's start,
// so that the 8-byte steps meet the end of the text at every place.
template <class T>
void expect_agrees(const std::string& text, size_t* taken = nullptr) {
  for (size_t len = text.size() + 1; len-- > 0;) {
    const char* begin = text.data();
    const char* end = begin + len;
    const char* p = begin;
    T fast{};
    const bool ok = text::fast_decimal(p, end, fast);
    if (!ok) {
      EXPECT_EQ(p, begin) << text << " (" << len << " bytes)";
      continue;
    }
    if (taken) ++*taken;
    T slow{};
    const auto r = std::from_chars(begin, end, slow);
    ASSERT_EQ(r.ec, std::errc()) << text << " (" << len << " bytes)";
    EXPECT_EQ(p, r.ptr) << text << " (" << len << " bytes)";
    EXPECT_EQ(std::memcmp(&fast, &slow, sizeof(T)), 0) << text << " (" << len << " bytes): " << fast << " vs " << slow;
  }
}

}  // namespace

TEST(TextFastDecimal, ExporterNumbersAreTakenAndExact) {
  for (const char* s : {"0.348369 ", "-0.0553311\n", "1 ", "0.0625", "-0.70710677 0", "1.0024396e-06 ", "12345678",
                        "123456789.25", "0.000000000000000000001", "7e22", "-0", "0."}) {
    SCOPED_TRACE(s);
    size_t taken = 0;
    expect_agrees<float>(s, &taken);
    expect_agrees<double>(s);
    EXPECT_GT(taken, 0u);
    const char* p = s;
    float f;
    ASSERT_TRUE(text::fast_decimal(p, s + std::strlen(s), f));  // the whole text: the fast path
  }
}

TEST(TextFastDecimal, LeftToFromCharsWithPUntouched) {
  for (const char* s : {"1234567890123456", "0.1234567890123456", "1e23", "1e-23", "+1", ".", "-.", "-", "e5",
                        "1e", "1e+", "inf", "nan", "0x10", "1e99999", "3.4028236e38", "1e-46"}) {
    SCOPED_TRACE(s);
    const char* p = s;
    double d;
    float f;
    // Some of these are taken as a shorter number (e.g. "1e" as 1): then exactly as from_chars.
    expect_agrees<double>(s);
    expect_agrees<float>(s);
    if (std::string_view(s) == "1234567890123456" || std::string_view(s) == "1e23" || std::string_view(s) == "+1" ||
        std::string_view(s) == ".") {
      EXPECT_FALSE(text::fast_decimal(p, s + std::strlen(s), d));
      EXPECT_EQ(p, s);
      EXPECT_FALSE(text::fast_decimal(p, s + std::strlen(s), f));
    }
  }
}

// Random decimals of every shape: 0-20 integer digits (leading zeros too), an optional fraction
// of 0-20 digits, an optional exponent, followed by a separator or nothing.
TEST(TextFastDecimal, RandomDecimalsAgreeWithFromChars) {
  std::mt19937_64 rng(19);
  auto digits = [&](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += char('0' + rng() % 10);
    return s;
  };
  size_t taken = 0;
  const char* tails[] = {"", " ", "\n", "x", ".5", "e", "-"};
  for (int i = 0; i < 20000; ++i) {
    std::string s = rng() % 3 ? "" : "-";
    s += digits(int(rng() % 21));
    if (rng() % 2) s += "." + digits(int(rng() % 21));
    if (rng() % 4 == 0) s += std::string(rng() % 2 ? "e" : "E") + (rng() % 2 ? "-" : "") + digits(1 + int(rng() % 2));
    s += tails[rng() % 7];
    if (i % 2) {
      expect_agrees<float>(s, &taken);
    } else {
      expect_agrees<double>(s, &taken);
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(taken, 20000u);  // most shapes are taken at some length
}

// The float path multiplies by the nearest double to 10^-k instead of dividing by 10^k, which
// is within 2 units in the last place: decimals of 15 significant digits next to a point
// halfway between two floats (where that error could change the rounding) must still give
// from_chars's float, and the exact-but-not-halfway values around them must be taken.
TEST(TextFastDecimal, NearHalfwayBetweenFloatsAgreesWithFromChars) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> exponent(-7.0, 7.0);  // 10^-21 .. 10^7 with 15 digits
  size_t taken = 0, deferred = 0;
  for (int i = 0; i < 20000; ++i) {
    const float f = float(std::pow(10.0, exponent(rng)));
    const double halfway = (double(f) + double(std::nextafter(f, 2 * f))) / 2;  // exact in a double
    char text[64];
    // 15 and 14 significant digits: the decimal nearest the halfway point, a little below or above.
    std::snprintf(text, sizeof text, "%.*e", 14 - i % 2, halfway);
    const char* p = text;
    float fast;
    if (text::fast_decimal(p, text + std::strlen(text), fast)) {
      ++taken;
    } else {
      ++deferred;
    }
    expect_agrees<float>(text);
    if (HasFailure()) break;
  }
  EXPECT_GT(deferred, 1000u);  // the ones too near halfway to decide by the fast path
  EXPECT_GT(taken, 1000u);
}

// Mantissas below 2^24 with powers of ten up to 10^10 either way are read by one float division
// or multiplication (exact operands, so one correct rounding): every one must be taken and be
// from_chars's float, also next to 2^24 and at the halfway points between floats (which a
// decimal of 8 digits after the point can be, such as 0.00000005960464477539 cut to 8 digits).
TEST(TextFastDecimal, SinglePrecisionPathIsTakenAndExact) {
  std::mt19937_64 rng(24);
  size_t taken = 0, tried = 0;
  for (int i = 0; i < 40000 && !HasFailure(); ++i) {
    const uint32_t m = i % 4 == 0 ? (1u << 24) - 1 - uint32_t(rng() % 1000) : uint32_t(rng() % (1u << 24));
    const int e = int(rng() % 21) - 10;
    char text[64];
    std::snprintf(text, sizeof text, "%s%ue%d", rng() % 2 ? "-" : "", m, e);
    const char* p = text;
    float fast = 0;
    ++tried;
    if (text::fast_decimal(p, text + std::strlen(text), fast)) ++taken;
    expect_agrees<float>(text);
  }
  EXPECT_EQ(taken, tried);
}

// fast_integer: the same value and end as from_chars for 1-18 digits with an optional '-', and
// left to from_chars (p untouched) otherwise.
TEST(TextFastInteger, AgreesWithFromCharsOrDefers) {
  std::mt19937_64 rng(7);
  size_t taken = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s = rng() % 3 ? "" : "-";
    for (int d = int(rng() % 22); d > 0; --d) s += char('0' + rng() % 10);
    s += i % 3 ? " 5" : "";
    const char* p = s.data();
    int64_t fast = 0;
    if (!text::fast_integer(p, s.data() + s.size(), fast)) {
      EXPECT_EQ(p, s.data()) << s;
      continue;
    }
    ++taken;
    int64_t slow = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), slow);
    ASSERT_EQ(r.ec, std::errc()) << s;
    EXPECT_EQ(fast, slow) << s;
    EXPECT_EQ(p, r.ptr) << s;
  }
  EXPECT_GT(taken, 10000u);
  for (const char* s : {"1234567890123456789", "-", "+1", "", "x"}) {
    const char* p = s;
    int64_t v;
    EXPECT_FALSE(text::fast_integer(p, s + std::strlen(s), v)) << s;
    EXPECT_EQ(p, s);
  }
}

}  // namespace meshport_test_text
