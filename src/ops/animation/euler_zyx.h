// Euler angles <-> quaternions for ModeDef .path files (docs/modedef.md): angles in radians,
// applied about X, then Y, then Z, all about fixed axes, so q = qz * qy * qx (R = Rz Ry Rx), the
// order of `meshport convert --rotate`. ops/animation/euler.h is a different convention (degrees, Rx Ry Rz).
#pragma once

#include "core/math.h"

namespace meshport::ops {

Quat quat_from_euler_zyx(Vec3 radians);
// The angles (radians; x and z in (-pi, pi], y in [-pi/2, pi/2]) of a unit quaternion; at the
// poles (y = +-pi/2) z is 0.
Vec3 euler_zyx_from_quat(Quat q);

}  // namespace meshport::ops
