// Modal deformation and the modes animation (include/meshport/modal.h).
#include <meshport/diagnostics.h>
#include <meshport/modal.h>

#include <cmath>

namespace meshport {

float mode_frequency(float eigenvalue) {
  if (!(eigenvalue > 0)) return 0;
  return float(std::sqrt(double(eigenvalue)) / (2.0 * 3.14159265358979323846));
}
std::vector<float> modal_displacements(const ModeDefModel&, std::span<const float>) { fail("", "modal: not implemented yet"); }
std::vector<float> render_displacements(const ModeDefModel&, std::span<const float>) { fail("", "modal: not implemented yet"); }
ModalDeformation deform_model(const ModeDefModel&, std::span<const float>) { fail("", "modal: not implemented yet"); }
void deform_scene(Scene&, std::span<const float>, size_t) { fail("", "modal: not implemented yet"); }
size_t add_modes_animation(Scene&, const ModesAnimationOptions&) { return 0; }

}  // namespace meshport
