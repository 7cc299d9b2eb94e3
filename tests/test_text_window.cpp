// text::window_numbers (src/core/text_window.h), the line scanner of the IQE reader: every number it
// reads is exactly std::from_chars's for the whole token; it stops at the first token it does not
// read (for the reader's general path) and never reads a token past the line's end or a '#'; the
// bytes after the line, which it may load, never change what it gives.
#include <gtest/gtest.h>

#include "core/text_window.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace meshport_test_text_window {

using namespace meshport;

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A line in a buffer with 72 readable bytes from its start, the bytes after the line filled with
// `fill` (digits, points and signs by default: what would join a number if it were read).
struct Line {
  std::string buffer;
  size_t size;
  Line(std::string_view text, std::string_view fill = "7.-3") : size(text.size()) {
    buffer.assign(text);
    while (buffer.size() < 80) buffer += fill;
  }
  const char* begin() const { return buffer.data(); }
  const char* end() const { return buffer.data() + size; }
};

// The tokens of a line as the IQE reader sees them: separated by white space, ending at a '#'.
std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size() || line[i] == '#') break;
    size_t e = i;
    while (e < line.size() && !is_space(line[e]) && line[e] != '#') ++e;
    out.push_back(line.substr(i, e - i));
    i = e;
  }
  return out;
}

// Checks window_numbers on `text` against from_chars token by token; returns how many it read.
template <class T>
int expect_agrees(std::string_view text, int max = 32) {
  const Line line(text);
  std::vector<T> out(size_t(max) + 1);
  const text::WindowRead r = text::window_numbers(line.begin(), line.end(), out.data(), max);
  const std::vector<std::string_view> want = tokens(text);
  EXPECT_LE(r.count, max) << text;
  EXPECT_LE(size_t(r.count), want.size()) << text;
  for (int i = 0; i < r.count && size_t(i) < want.size(); ++i) {
    const std::string_view t = want[size_t(i)];
    T slow{};
    const auto c = std::from_chars(t.data(), t.data() + t.size(), slow);
    EXPECT_EQ(c.ec, std::errc()) << text << ": token " << i << " " << t;
    EXPECT_EQ(c.ptr, t.data() + t.size()) << text << ": token " << i << " " << t << " is not all number";
    EXPECT_EQ(std::memcmp(&slow, &out[size_t(i)], sizeof(T)), 0)
        << text << ": token " << i << " " << t << ": " << out[size_t(i)] << " vs " << slow;
  }
  const char* base = line.begin();
  if (r.general) {
    // Stopped at a token it leaves: the next one, at its start.
    EXPECT_LT(size_t(r.count), want.size()) << text;
    if (size_t(r.count) < want.size()) {
      EXPECT_EQ(r.at, want[size_t(r.count)].data() - text.data() + base) << text;
    }
  } else if (r.count == max && size_t(max) <= want.size()) {
    EXPECT_EQ(r.at - base, want[size_t(max) - 1].data() + want[size_t(max) - 1].size() - text.data()) << text;
  } else {
    // Every token read; `at` is at the '#' or the end of the line.
    EXPECT_EQ(size_t(r.count), want.size()) << text;
    const size_t hash = text.find('#');
    EXPECT_EQ(size_t(r.at - base), hash == std::string_view::npos ? text.size() : hash) << text;
  }
  if (r.count > 0) {
    EXPECT_EQ(r.last, want[size_t(r.count) - 1].data() - text.data() + base) << text;
  }
  return r.count;
}

}  // namespace

TEST(TextWindow, ExporterLinesAreReadExactly) {
  const Line vn(" 0.997559 0 0.0698291");
  float v[4];
  text::WindowRead r = text::window_numbers(vn.begin(), vn.end(), v, 4);
  ASSERT_EQ(r.count, 3);
  EXPECT_FALSE(r.general);
  EXPECT_EQ(v[0], 0.997559f);
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_EQ(v[2], 0.0698291f);
  EXPECT_EQ(r.at, vn.end());
  EXPECT_EQ(r.last, vn.begin() + 12);

  const Line fm(" 0 252 1\r");
  int64_t f[4];
  r = text::window_numbers(fm.begin(), fm.end(), f, 4);
  ASSERT_EQ(r.count, 3);
  EXPECT_EQ(f[0], 0);
  EXPECT_EQ(f[1], 252);
  EXPECT_EQ(f[2], 1);

  for (const char* s : {" -0.0553311 1. .5 -.5 -0 12345678.87654321", "\t1\v2\f3\r4 # 5 6", "0.5#c 7",
                        "99999999.9999999 00000000.00000001"})
    expect_agrees<float>(s);
  // -0 keeps its sign, as from_chars gives it.
  const Line zero("-0");
  r = text::window_numbers(zero.begin(), zero.end(), v, 1);
  ASSERT_EQ(r.count, 1);
  EXPECT_TRUE(std::signbit(v[0]));
}

TEST(TextWindow, LeavesWhatItDoesNotReadToTheGeneralPath) {
  // Each of these tokens is left at once: the reader's general path reads it (or reports it).
  for (const char* s : {"+1", "1e5", "1E-5", "123456789.5", "0.123456789", "1.2.3", "--1", "-", ".", "-.", "1-2",
                        "inf", "nan", "0x10", "abc", "1,5", "\xc3\xa9", "1234567.12345678" /* 15 digits: read */}) {
    SCOPED_TRACE(s);
    const int n = expect_agrees<float>(std::string("1 ") + s + " 2");
    if (std::string_view(s) == "1234567.12345678") {
      EXPECT_EQ(n, 3);
    } else {
      EXPECT_EQ(n, 1);
    }
  }
  for (const char* s : {"123456789", "+1", "1.0", "1e2", "-", "--1", "x"}) {
    SCOPED_TRACE(s);
    EXPECT_EQ(expect_agrees<int64_t>(std::string("7 ") + s), 1);
  }
  EXPECT_EQ(expect_agrees<int64_t>("12345678 -12345678 0 -0"), 4);
}

TEST(TextWindow, StopsAtMaxAtTheLineEndAndAtTheWindowEdge) {
  EXPECT_EQ(expect_agrees<float>("1 2 3 4 5 6", 4), 4);
  EXPECT_EQ(expect_agrees<float>("", 4), 0);
  EXPECT_EQ(expect_agrees<float>("   \t ", 4), 0);
  EXPECT_EQ(expect_agrees<float>("# 1 2", 4), 0);
  // 64-byte lines whose last token ends at the window's last byte, or just before it.
  std::string full;
  while (full.size() < 56) full += "1.5 ";
  full += "-2.25000";  // 64 bytes
  ASSERT_EQ(full.size(), 64u);
  EXPECT_EQ(expect_agrees<float>(full), 15);
  full.back() = ' ';
  EXPECT_EQ(expect_agrees<float>(full), 15);
  // What follows the line, even digits that would continue its last number, is never read.
  for (const char* fill : {"0", "5.5", "#", " ", "e9"}) {
    const Line l("1.25", fill);
    float v[2];
    const text::WindowRead r = text::window_numbers(l.begin(), l.end(), v, 2);
    ASSERT_EQ(r.count, 1) << fill;
    EXPECT_EQ(v[0], 1.25f) << fill;
    EXPECT_EQ(r.at, l.end()) << fill;
  }
}

// Random lines of up to 64 bytes: plain decimals and integers of every length, and tokens of
// other shapes, separated by every kind of white space, sometimes with a comment.
TEST(TextWindow, RandomLinesAgreeWithFromChars) {
  std::mt19937_64 rng(64);
  auto digits = [&](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += char('0' + rng() % 10);
    return s;
  };
  const char* spaces[] = {" ", "  ", "\t", " \t", "\r", "\v", "\f"};
  const char* others[] = {"+1", "1e-3", "-", ".", "1.2.3", "x", "#", "--2"};
  int read_floats = 0, read_ints = 0, lines = 0;
  for (int i = 0; i < 30000 && !HasFailure(); ++i) {
    std::string line = rng() % 2 ? spaces[rng() % 7] : "";
    for (int t = 0; t < 12; ++t) {
      std::string token;
      if (rng() % 12 == 0) {
        token = others[rng() % 8];
      } else {
        token = rng() % 3 ? "" : "-";
        token += digits(int(rng() % 11));
        if (rng() % 2) token += "." + digits(int(rng() % 11));
      }
      if (line.size() + token.size() + 1 > 64) break;
      line += token;
      line += spaces[rng() % 7];
    }
    if (line.size() > 64) line.resize(64);
    ++lines;
    if (i % 2) {
      read_floats += expect_agrees<float>(line, 1 + int(rng() % 32));
    } else {
      read_ints += expect_agrees<int64_t>(line, 1 + int(rng() % 32));
    }
  }
  // Most lines start with a plain token, so most calls read something.
  EXPECT_GT(read_floats, lines / 2);
  EXPECT_GT(read_ints, lines / 4);
}

// Points halfway between two floats, written with 1 to 8 decimals (exactly, or rounded to the
// nearest such decimal), for floats of 2^-10..2^24: the product with the nearest double to 10^-k
// can land on the other side of such a point, so the ones near it must be deferred to keep the
// result from_chars's (ties to even). Without the deferral about 1 % of these come out wrong.
TEST(TextWindow, HalfwayBetweenFloatsAgreesWithFromChars) {
  std::mt19937_64 rng(8);
  int read = 0, calls = 0;
  for (int e = -10; e < 24 && !HasFailure(); ++e) {
    std::uniform_real_distribution<float> binade(std::ldexp(1.0f, e), std::ldexp(1.0f, e + 1));
    for (int i = 0; i < 400 && !HasFailure(); ++i) {
      const float f = binade(rng);
      const double halfway = (double(f) + double(std::nextafter(f, 2 * f))) / 2;  // exact in a double
      for (int decimals = 1; decimals <= 8; ++decimals) {
        char text[64];
        std::snprintf(text, sizeof text, "%.*f", decimals, halfway);
        if (std::strlen(text) > 17) continue;  // more than 8 digits before the point
        read += expect_agrees<float>(text);
        ++calls;
      }
    }
  }
  EXPECT_GT(read, calls / 2);  // those not near halfway are read
}

}  // namespace meshport_test_text_window
