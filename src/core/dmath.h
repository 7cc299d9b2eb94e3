// Affine transforms in double precision (column-major 3x4: the three basis columns, then the
// translation, as core/math.h's Mat3x4), for chains of joint transforms where float rounding
// would add up: glTF inverse bind matrices, retargeting between skeletons.
#pragma once

#include <meshport/scene.h>

#include <array>

namespace meshport::ops {

using D34 = std::array<double, 12>;

D34 d_identity();
// Translation, rotation (normalised; a zero quaternion is the identity) and scale.
D34 d_from_trs(const Transform& t);
// The same with the rotation `q` used as given (already of unit length; t.rotation is ignored).
D34 d_from_unit_trs(const Transform& t, const std::array<double, 4>& q);
D34 d_mul(const D34& a, const D34& b);
// The inverse; the identity for a singular or non-finite matrix.
D34 d_inverse(const D34& m);

}  // namespace meshport::ops
