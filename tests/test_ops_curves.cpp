// Blender 2.4x IPO curve evaluation (src/ops/animation/curves.h): values computed by hand.
#include "ops/animation/curves.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace meshport_test_ops_curves {

using meshport::QmshTmpCurve;
using meshport::ops::Curve;
using meshport::ops::evaluate;
using meshport::ops::prepare_curve;
using Interp = QmshTmpCurve::Interpolation;
using Extend = QmshTmpCurve::Extend;

namespace {

Curve make(Interp i, Extend e, std::vector<std::array<float, 2>> points) {
  QmshTmpCurve c;
  c.name = "LocX";
  c.interpolation = i;
  c.extend = e;
  c.points = std::move(points);
  return prepare_curve(c);
}

// Keys (0, 0), (10, 10), (20, 4): first segment slope 1, last segment slope -0.6, span 20,
// change per cycle +4.
Curve asym(Interp i, Extend e) { return make(i, e, {{0, 0}, {10, 10}, {20, 4}}); }

}  // namespace

TEST(Curves, ConstHoldsPreviousKey) {
  Curve c = make(Interp::Const, Extend::Const, {{0, 1}, {10, 3}, {20, -1}});
  EXPECT_EQ(evaluate(c, 0), 1);
  EXPECT_EQ(evaluate(c, 5), 1);
  EXPECT_EQ(evaluate(c, 9.999), 1);
  EXPECT_EQ(evaluate(c, 10), 3);
  EXPECT_EQ(evaluate(c, 15), 3);
  EXPECT_EQ(evaluate(c, 20), -1);
}

TEST(Curves, LinearInterpolates) {
  Curve c = make(Interp::Linear, Extend::Const, {{0, 1}, {10, 3}, {20, -1}});
  EXPECT_DOUBLE_EQ(evaluate(c, 5), 2);
  EXPECT_DOUBLE_EQ(evaluate(c, 10), 3);
  EXPECT_DOUBLE_EQ(evaluate(c, 12.5), 2);
  EXPECT_DOUBLE_EQ(evaluate(c, 20), -1);
}

TEST(Curves, BezierAutoHandlesByHand) {
  // Keys P0 (0, 0), P1 (10, 10), P2 (20, 0).
  // P0 (first key, neighbour mirrored to (-10, -10)): len1 = len2 = 10, v = (1, 1) + (1, 1) = (2, 2),
  //   L = 2.5614 * sqrt(8) = 7.24476; right handle = P0 + v * 10 / L = (2.760626, 2.760626).
  // P1: v = (P2 - P1) / 10 + (P1 - P0) / 10 = (1, -1) + (1, 1) = (2, 0), L = 5.1228;
  //   left handle = P1 - v * 10 / L = (6.095885, 10), right = (13.904115, 10).
  // Segment P0 P1 at s = 1/2: x = (0 + 3 * 2.760626 + 3 * 6.095885 + 10) / 8 = 4.571192,
  //   y = (0 + 3 * 2.760626 + 3 * 10 + 10) / 8 = 6.035235.
  Curve c = make(Interp::Bezier, Extend::Const, {{0, 0}, {10, 10}, {20, 0}});
  ASSERT_EQ(c.keys.size(), 3u);
  EXPECT_NEAR(c.keys[0].right[0], 2.760626146586037, 1e-9);
  EXPECT_NEAR(c.keys[0].right[1], 2.760626146586037, 1e-9);
  EXPECT_NEAR(c.keys[1].left[0], 6.095885062856251, 1e-9);
  EXPECT_NEAR(c.keys[1].left[1], 10, 1e-12);
  EXPECT_NEAR(c.keys[1].right[0], 13.904114937143749, 1e-9);
  EXPECT_NEAR(evaluate(c, 4.571191703540858), 6.035234804969765, 1e-9);
  // The mirror image on the second segment, and the keys themselves.
  EXPECT_NEAR(evaluate(c, 20 - 4.571191703540858), 6.035234804969765, 1e-9);
  EXPECT_DOUBLE_EQ(evaluate(c, 0), 0);
  EXPECT_DOUBLE_EQ(evaluate(c, 10), 10);
  EXPECT_DOUBLE_EQ(evaluate(c, 20), 0);
}

TEST(Curves, BezierHandleLengthsClampedToFiveTimes) {
  // P1 (10, 0) with neighbours (0, 0) and (11, 1): len1 = 10 is clamped to 5 * len2 = 5.
  // v = (1, 1) / 1 + (10, 0) / 5 = (3, 1), L = 2.5614 * sqrt(10) = 8.099862;
  // left = P1 - v * 5 / L = (10 - 1.851883, -0.617294), right = P1 + v / L = (10.370377, 0.123459).
  Curve c = make(Interp::Bezier, Extend::Const, {{0, 0}, {10, 0}, {11, 1}});
  const double l = 2.5614 * std::sqrt(10.0);
  EXPECT_NEAR(c.keys[1].left[0], 10 - 15 / l, 1e-9);
  EXPECT_NEAR(c.keys[1].left[1], -5 / l, 1e-9);
  EXPECT_NEAR(c.keys[1].right[0], 10 + 3 / l, 1e-9);
  EXPECT_NEAR(c.keys[1].right[1], 1 / l, 1e-9);
}

TEST(Curves, ExtendConst) {
  Curve c = asym(Interp::Linear, Extend::Const);
  EXPECT_DOUBLE_EQ(evaluate(c, -5), 0);
  EXPECT_DOUBLE_EQ(evaluate(c, 25), 4);
  EXPECT_DOUBLE_EQ(evaluate(c, 1e9), 4);
}

TEST(Curves, ExtendExtrapolate) {
  Curve lin = asym(Interp::Linear, Extend::Extrap);
  EXPECT_DOUBLE_EQ(evaluate(lin, -5), -5);   // slope 1
  EXPECT_DOUBLE_EQ(evaluate(lin, 25), 1);    // 4 - 0.6 * 5
  // Bezier: the end handles of mirrored neighbours point along the end segments.
  Curve bez = asym(Interp::Bezier, Extend::Extrap);
  EXPECT_NEAR(evaluate(bez, -5), -5, 1e-9);
  EXPECT_NEAR(evaluate(bez, 25), 1, 1e-9);
  // CONST interpolation does not extrapolate.
  Curve con = asym(Interp::Const, Extend::Extrap);
  EXPECT_DOUBLE_EQ(evaluate(con, -5), 0);
  EXPECT_DOUBLE_EQ(evaluate(con, 25), 4);
}

TEST(Curves, ExtendCyclic) {
  Curve c = asym(Interp::Linear, Extend::Cyclic);
  EXPECT_DOUBLE_EQ(evaluate(c, 25), 5);   // frame 5
  EXPECT_DOUBLE_EQ(evaluate(c, -5), 7);   // frame 15
  EXPECT_DOUBLE_EQ(evaluate(c, 20), 4);   // the last key itself is not cycled
  EXPECT_DOUBLE_EQ(evaluate(c, 40), 0);   // frame 0 of the second repetition
  EXPECT_NEAR(evaluate(c, 52), 8.8, 1e-12);  // frame 12
}

TEST(Curves, ExtendCyclicExtrapolate) {
  Curve c = asym(Interp::Linear, Extend::CyclicExtrap);
  EXPECT_DOUBLE_EQ(evaluate(c, 25), 9);   // 5 + 4
  EXPECT_DOUBLE_EQ(evaluate(c, -5), 3);   // 7 - 4
  EXPECT_DOUBLE_EQ(evaluate(c, 45), 13);  // 5 + 2 * 4
  EXPECT_DOUBLE_EQ(evaluate(c, -20), -4);  // frame 0, one cycle back: 0 - 4
  EXPECT_DOUBLE_EQ(evaluate(c, 40), 8);   // continuous with the end: 4 + 4
}

TEST(Curves, SingleKeyAndEmpty) {
  for (Interp i : {Interp::Const, Interp::Linear, Interp::Bezier})
    for (Extend e : {Extend::Const, Extend::Extrap, Extend::Cyclic, Extend::CyclicExtrap}) {
      Curve c = make(i, e, {{7, 2.5f}});
      EXPECT_EQ(evaluate(c, -100), 2.5);
      EXPECT_EQ(evaluate(c, 7), 2.5);
      EXPECT_EQ(evaluate(c, 100), 2.5);
      EXPECT_EQ(evaluate(make(i, e, {}), 3), 0);
    }
}

TEST(Curves, UnsortedAndNonFinitePoints) {
  QmshTmpCurve q;
  q.interpolation = Interp::Linear;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  q.points = {{10, 3}, {nan, 1}, {0, 1}, {5, inf}};
  size_t dropped = 0;
  Curve c = prepare_curve(q, &dropped);
  EXPECT_EQ(dropped, 2u);
  ASSERT_EQ(c.keys.size(), 2u);
  EXPECT_EQ(c.keys[0].x, 0);
  EXPECT_DOUBLE_EQ(evaluate(c, 5), 2);
}

TEST(Curves, KeysSharingAFrame) {
  // A step: two keys at frame 10. Before it the first, from it on the second.
  Curve lin = make(Interp::Linear, Extend::Const, {{0, 0}, {10, 1}, {10, 5}, {20, 5}});
  EXPECT_DOUBLE_EQ(evaluate(lin, 5), 0.5);
  EXPECT_DOUBLE_EQ(evaluate(lin, 10), 5);
  Curve bez = make(Interp::Bezier, Extend::Const, {{0, 0}, {10, 1}, {10, 5}, {20, 5}});
  EXPECT_TRUE(std::isfinite(evaluate(bez, 5)));
  EXPECT_DOUBLE_EQ(evaluate(bez, 10), 5);
  EXPECT_DOUBLE_EQ(evaluate(bez, 15), 5);
}

}  // namespace meshport_test_ops_curves
