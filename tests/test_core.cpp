#include <meshport/meshport.h>

#include "core/math.h"
#include "ops/mesh/axes.h"

#include <gtest/gtest.h>

namespace meshport_test_core {

using namespace meshport;

TEST(Axes, ZupToSceneIsExactAndReversible) {
  Vec3 v{1.5f, -2.25f, 3.0f};
  EXPECT_EQ(axes::zup_to_scene(v), (Vec3{1.5f, 3.0f, 2.25f}));
  EXPECT_EQ(axes::scene_to_zup(axes::zup_to_scene(v)), v);
  Quat q{0.1f, 0.2f, 0.3f, 0.9f};
  EXPECT_EQ(axes::scene_to_zup(axes::zup_to_scene(q)), q);
}

TEST(Axes, QuaternionConjugationMatchesVectorMapping) {
  // Rotating in Z-up space then converting equals converting then rotating in Scene space.
  Quat q = quat_normalize({0.3f, -0.5f, 0.2f, 0.8f});
  Vec3 v{0.7f, 1.1f, -0.4f};
  Vec3 a = axes::zup_to_scene(quat_rotate(q, v));
  Vec3 b = quat_rotate(axes::zup_to_scene(q), axes::zup_to_scene(v));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], 1e-6);
}

TEST(Format, ByExtensionAndName) {
  EXPECT_EQ(format_from_path("a/b/Model.IQM"), Format::Iqm);
  EXPECT_EQ(format_from_path("x.iqe"), Format::Iqe);
  EXPECT_FALSE(format_from_path("x.txt").has_value());
  EXPECT_EQ(format_from_name("IQE"), Format::Iqe);
  EXPECT_EQ(format_from_name(".iqm"), Format::Iqm);
}

TEST(Diagnostic, Formatting) {
  Diagnostic d;
  d.file = "a.iqe";
  d.line = 3;
  d.column = 7;
  d.message = "bad";
  EXPECT_EQ(d.to_string(), "a.iqe:3:7: error: bad");
  d.line = 0;
  d.offset = 124;
  d.severity = Severity::Warning;
  EXPECT_EQ(d.to_string(), "a.iqe: offset 124: warning: bad");
}

TEST(Math, InverseOfTrs) {
  Mat3x4 m = mat_from_trs({1, 2, 3}, quat_normalize({0.2f, 0.3f, 0.1f, 0.9f}), {2, 0.5f, 1.5f});
  Mat3x4 i = mat_mul(m, mat_inverse(m));
  Mat3x4 id = mat_identity();
  for (int k = 0; k < 12; ++k) EXPECT_NEAR(i[k], id[k], 1e-5);
}

}  // namespace meshport_test_core
