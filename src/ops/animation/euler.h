// Euler angles <-> quaternions. One convention: R = Rx(x) * Ry(y) * Rz(z) as a matrix product
// (a vector is rotated about Z first, then Y, then X, all about fixed axes), angles in degrees,
// right-handed. PIE ANIMOBJECT uses it (docs/pie.md).
#pragma once

#include "core/math.h"

namespace meshport::ops {

Quat quat_from_euler_xyz(Vec3 degrees);
// The angles (degrees, x and z in (-180, 180], y in [-90, 90]) of a unit quaternion; at the
// poles (y = +-90) z is 0.
Vec3 euler_xyz_from_quat(Quat q);

}  // namespace meshport::ops
