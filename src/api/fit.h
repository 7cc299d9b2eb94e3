// The step between a Scene and a writer: what the target format cannot hold (formats.h
// FormatCapabilities) converted or dropped with a warning. meshport.h declares fit_to_format.
#pragma once

#include <meshport/formats.h>
#include <meshport/meshport.h>

#include "ops/materials/image_files.h"

#include <optional>

namespace meshport {

// fit_to_format without the copy when nothing changes: nullopt when `scene` fits `format` as it is.
std::optional<Scene> fitted(const Scene& scene, Format format, const WriteOptions& options, Diagnostics& d);

// What a format writes of its materials' textures, for Scene::images written beside it
// (ops/materials/image_files.h); nullopt for formats that reference no texture files (ModeDef) or
// embed images themselves (glTF).
std::optional<ops::ImageFileRules> image_rules(const FormatCapabilities& holds);

}  // namespace meshport
