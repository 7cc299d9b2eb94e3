// Blender 2.4x IPO curves, as .qmsh.tmp actions hold them (../shared/specs/qmsh-notes.md,
// docs/qmsh.md "Into the Scene"): key points (frame, value) only; Bezier handles are the
// automatic ones Blender computes from the neighbouring keys.
//
// Between keys: CONST holds the previous key's value, LINEAR interpolates, BEZIER is the cubic
// through the key and its handles, solved for x = frame and then evaluated for y. Outside the
// keys: CONST holds the end value, EXTRAP continues the end slope (a LINEAR curve's end segment,
// a BEZIER curve's end handle; a CONST curve holds), CYCLIC repeats the keyed span, CYCLIC_EXTRAP
// repeats it adding the change in value per cycle. A frame inside [first, last] (ends included)
// is never cycled. One key: that value everywhere; no keys: 0.
#pragma once

#include <meshport/scene.h>

#include <array>
#include <vector>

namespace meshport::ops {

struct CurveKey {
  double x = 0, y = 0;                // frame, value
  std::array<double, 2> left{}, right{};  // Bezier handles (x, y); equal to the key otherwise
};

struct Curve {
  QmshTmpCurve::Interpolation interpolation = QmshTmpCurve::Interpolation::Linear;
  QmshTmpCurve::Extend extend = QmshTmpCurve::Extend::Const;
  std::vector<CurveKey> keys;  // sorted by frame (stable), every value finite
};

// The file's curve ready to evaluate: points with a non-finite frame or value are dropped (the
// number dropped goes to `dropped` when given), the rest sorted stably by frame, and for BEZIER
// the automatic handles computed.
Curve prepare_curve(const QmshTmpCurve& curve, size_t* dropped = nullptr);

// Blender's automatic handles for sorted keys (qmsh-notes.md): key p1 with neighbours p0, p2
// (a missing one mirrored through p1), len1 = x1 - x0 and len2 = x2 - x1, each clamped to at
// most 5 times the other, v = (p2 - p1) / len2 + (p1 - p0) / len1, L = 2.5614 |v|; handles
// p1 - v len1 / L and p1 + v len2 / L. Where a length or L is 0 (keys sharing a frame, a single
// key) both handles are the key itself.
void auto_handles(std::vector<CurveKey>& keys);

// The curve's value at `frame`.
double evaluate(const Curve& curve, double frame);

}  // namespace meshport::ops
