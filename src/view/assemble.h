// `meshport assemble`: a Warzone 2100 unit from its parts (body, propulsion, weapons), each
// placed as the game places it (docs/viewer.md, "Assembling units").
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <string>
#include <vector>

namespace meshport::view {

struct Part {
  std::string file;  // for messages
  Scene scene;
};

struct AssembleOptions {
  // VTOL: weapons go to body connectors 2, 3, ... (connector 1 is the ground turret's).
  bool vtol = false;
};

// parts[0] is the body, parts[1] the propulsion, parts[2..] the weapons. The body and the
// propulsion stay at the origin; weapon i moves to the body's connector i + 1 (i + 2 for VTOL),
// in the body's file order. One Scene results: meshes, materials, images, joints, attachments and
// animations of every part (animations widened to all joints, the others at rest). Format side
// data is dropped (it describes one file). Throws meshport::Error when the body has too few
// connectors.
Scene assemble(std::vector<Part> parts, const AssembleOptions& options = {}, Diagnostics* diags = nullptr);

}  // namespace meshport::view
