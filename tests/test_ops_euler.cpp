// Euler angles <-> quaternions (src/ops/animation/euler.h): R = Rx * Ry * Rz, degrees.
#include "ops/animation/euler.h"

#include <gtest/gtest.h>

#include <cmath>

namespace meshport_test_ops_euler {

using namespace meshport;

namespace {

void expect_vec_near(Vec3 a, Vec3 b, float tol) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], tol) << "component " << i;
}

}  // namespace

TEST(Euler, SingleAxes) {
  const float h = std::sqrt(0.5f);
  Quat x = ops::quat_from_euler_xyz({90, 0, 0});
  EXPECT_NEAR(x[0], h, 1e-6f);
  EXPECT_NEAR(x[3], h, 1e-6f);
  EXPECT_NEAR(x[1], 0, 1e-7f);
  Quat z = ops::quat_from_euler_xyz({0, 0, -90});
  EXPECT_NEAR(z[2], -h, 1e-6f);
  EXPECT_NEAR(z[3], h, 1e-6f);
  // Rx(90) turns +Y into +Z.
  expect_vec_near(quat_rotate(x, {0, 1, 0}), {0, 0, 1}, 1e-6f);
}

TEST(Euler, OrderIsZThenYThenX) {
  // R = Rx(90) * Ry(90): a vector along +X first goes to -Z (Ry), then to +Y (Rx).
  Quat q = ops::quat_from_euler_xyz({90, 90, 0});
  expect_vec_near(quat_rotate(q, {1, 0, 0}), {0, 1, 0}, 1e-6f);
  // And +Z: Ry(90) takes it to +X, Rx leaves it.
  expect_vec_near(quat_rotate(q, {0, 0, 1}), {1, 0, 0}, 1e-6f);
}

TEST(Euler, RoundTrip) {
  const Vec3 cases[] = {{10, 20, 30}, {-45, 60, 170}, {179, -89, -179}, {0, 0, 0}, {33.333f, -12.5f, 90}};
  for (Vec3 e : cases) {
    Vec3 back = ops::euler_xyz_from_quat(ops::quat_from_euler_xyz(e));
    expect_vec_near(back, e, 2e-3f);
  }
}

TEST(Euler, Gimbal) {
  // y = 90: only x - z... is determined; the result must rotate vectors the same way.
  Quat q = ops::quat_from_euler_xyz({30, 90, 20});
  Vec3 e = ops::euler_xyz_from_quat(q);
  EXPECT_NEAR(e[1], 90, 1e-2f);
  EXPECT_EQ(e[2], 0);
  Quat r = ops::quat_from_euler_xyz(e);
  for (Vec3 v : {Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}}) expect_vec_near(quat_rotate(r, v), quat_rotate(q, v), 1e-3f);
}

}  // namespace meshport_test_ops_euler
