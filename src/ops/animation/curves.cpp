// Blender 2.4x IPO curve evaluation (curves.h). Written from the semantics in
// ../shared/specs/qmsh-notes.md; everything is computed in double.
#include "ops/animation/curves.h"

#include <algorithm>
#include <cmath>

namespace meshport::ops {
namespace {

using Interp = QmshTmpCurve::Interpolation;
using Extend = QmshTmpCurve::Extend;
using P2 = std::array<double, 2>;

P2 sub(P2 a, P2 b) { return {a[0] - b[0], a[1] - b[1]}; }
P2 add(P2 a, P2 b) { return {a[0] + b[0], a[1] + b[1]}; }
P2 scale(P2 a, double s) { return {a[0] * s, a[1] * s}; }

void handles_of(std::vector<CurveKey>& keys, size_t i) {
  CurveKey& k = keys[i];
  const P2 p1{k.x, k.y};
  k.left = k.right = p1;
  const bool has_prev = i > 0, has_next = i + 1 < keys.size();
  if (!has_prev && !has_next) return;
  const P2 p0 = has_prev ? P2{keys[i - 1].x, keys[i - 1].y} : sub(scale(p1, 2), {keys[i + 1].x, keys[i + 1].y});
  const P2 p2 = has_next ? P2{keys[i + 1].x, keys[i + 1].y} : sub(scale(p1, 2), p0);
  double len1 = p1[0] - p0[0], len2 = p2[0] - p1[0];
  len1 = std::min(len1, 5 * len2);
  len2 = std::min(len2, 5 * len1);
  if (!(len1 > 0 && len2 > 0)) return;
  const P2 v = add(scale(sub(p2, p1), 1 / len2), scale(sub(p1, p0), 1 / len1));
  const double l = 2.5614 * std::hypot(v[0], v[1]);
  if (!(l > 0) || !std::isfinite(l)) return;
  k.left = sub(p1, scale(v, len1 / l));
  k.right = add(p1, scale(v, len2 / l));
}

// The cubic Bezier a, b, c, d (one coordinate) and its derivative at s.
double cubic(double a, double b, double c, double d, double s) {
  const double t = 1 - s;
  return t * t * t * a + 3 * t * t * s * b + 3 * t * s * s * c + s * s * s * d;
}
double cubic_slope(double a, double b, double c, double d, double s) {
  const double t = 1 - s;
  return 3 * (t * t * (b - a) + 2 * t * s * (c - b) + s * s * (d - c));
}

// The parameter s in [0, 1] where the segment's x equals `x`. The automatic handles keep x(s)
// increasing (each handle reaches at most 1 / 2.5614 of the way across its segment), so Newton
// steps inside a shrinking bisection bracket converge.
double solve_bezier_x(const CurveKey& k0, const CurveKey& k1, double x) {
  const double a = k0.x, b = k0.right[0], c = k1.left[0], d = k1.x;
  double lo = 0, hi = 1, s = (x - a) / (d - a);
  for (int it = 0; it < 64; ++it) {
    const double f = cubic(a, b, c, d, s) - x;
    if (f == 0) break;
    (f < 0 ? lo : hi) = s;
    const double slope = cubic_slope(a, b, c, d, s);
    double next = slope > 0 ? s - f / slope : lo - 1;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (next == s || hi - lo < 1e-15) break;
    s = next;
  }
  return std::clamp(s, 0.0, 1.0);
}

// Value inside [first, last]: segment k0 k1 with k0.x <= x < k1.x.
double interpolate(const Curve& c, double x) {
  const auto& keys = c.keys;
  auto it = std::upper_bound(keys.begin(), keys.end(), x, [](double v, const CurveKey& k) { return v < k.x; });
  if (it == keys.end()) return keys.back().y;
  if (it == keys.begin()) return keys.front().y;
  const CurveKey& k1 = *it;
  const CurveKey& k0 = *(it - 1);
  switch (c.interpolation) {
    case Interp::Const:
      return k0.y;
    case Interp::Linear:
      return k0.y + (k1.y - k0.y) * ((x - k0.x) / (k1.x - k0.x));
    case Interp::Bezier:
      return cubic(k0.y, k0.right[1], k1.left[1], k1.y, solve_bezier_x(k0, k1, x));
  }
  return k0.y;
}

// Slope used by EXTRAP before the first key (at_end false) or after the last; 0 holds.
double end_slope(const Curve& c, bool at_end) {
  const auto& keys = c.keys;
  const CurveKey& k = at_end ? keys.back() : keys.front();
  switch (c.interpolation) {
    case Interp::Const:
      return 0;
    case Interp::Linear: {
      const CurveKey& a = at_end ? keys[keys.size() - 2] : keys[0];
      const CurveKey& b = at_end ? keys.back() : keys[1];
      return b.x > a.x ? (b.y - a.y) / (b.x - a.x) : 0;
    }
    case Interp::Bezier: {
      const P2 h = at_end ? k.right : k.left;
      const double dx = h[0] - k.x;
      return dx != 0 ? (h[1] - k.y) / dx : 0;
    }
  }
  return 0;
}

}  // namespace

void auto_handles(std::vector<CurveKey>& keys) {
  for (size_t i = 0; i < keys.size(); ++i) handles_of(keys, i);
}

Curve prepare_curve(const QmshTmpCurve& curve, size_t* dropped) {
  Curve c;
  c.interpolation = curve.interpolation;
  c.extend = curve.extend;
  size_t bad = 0;
  for (const auto& p : curve.points) {
    if (!std::isfinite(p[0]) || !std::isfinite(p[1])) {
      ++bad;
      continue;
    }
    CurveKey k;
    k.x = p[0];
    k.y = p[1];
    k.left = k.right = {k.x, k.y};
    c.keys.push_back(k);
  }
  std::stable_sort(c.keys.begin(), c.keys.end(), [](const CurveKey& a, const CurveKey& b) { return a.x < b.x; });
  if (c.interpolation == Interp::Bezier) auto_handles(c.keys);
  if (dropped) *dropped = bad;
  return c;
}

double evaluate(const Curve& c, double x) {
  const auto& keys = c.keys;
  if (keys.empty()) return 0;
  if (keys.size() == 1 || std::isnan(x)) return keys.front().y;
  const CurveKey& first = keys.front();
  const CurveKey& last = keys.back();
  if (x >= first.x && x <= last.x) return interpolate(c, x);
  const bool after = x > last.x;
  const double span = last.x - first.x;
  switch (c.extend) {
    case Extend::Const:
      return after ? last.y : first.y;
    case Extend::Extrap: {
      const double slope = end_slope(c, after);
      const CurveKey& k = after ? last : first;
      return std::isfinite(x) && slope != 0 ? k.y + slope * (x - k.x) : k.y;
    }
    case Extend::Cyclic:
    case Extend::CyclicExtrap: {
      if (!(span > 0) || !std::isfinite(x)) return after ? last.y : first.y;
      const double cycles = std::floor((x - first.x) / span);
      const double local = std::clamp(x - cycles * span, first.x, last.x);
      const double shift = c.extend == Extend::CyclicExtrap ? cycles * (last.y - first.y) : 0;
      return interpolate(c, local) + shift;
    }
  }
  return after ? last.y : first.y;
}

}  // namespace meshport::ops
