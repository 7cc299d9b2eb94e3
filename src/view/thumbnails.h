// `meshport thumbnail` over a tree (docs/viewer.md, "Thumbnails"): the models found as `batch`
// finds them (files, folders, globs; outputs mirror the tree, up-to-date ones are skipped), drawn
// by the viewer's page in one headless Chromium, several pages at once.
#pragma once

#include "view/model.h"

#include <meshport/batch.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace meshport::view {

struct ThumbnailOptions {
  std::vector<std::string> inputs;  // files, folders, globs (or one unit's parts with `assemble`)
  bool assemble = false;            // the inputs are one unit's parts: one picture
  std::string output_dir;           // DIR/<relative path>.png
  uint32_t size = 256;              // width and height
  unsigned jobs = 0;                // pages drawing at once; 0: one per core
  bool force = false;               // draw even when the PNG is up to date
  double timeout = 60;              // seconds a page has to draw its model
  std::string chromium = "chromium";
  LoadOptions load;                 // from, vtol, texture folders, memory cap (its `files` are ignored)
  std::string sheet;                // a contact sheet of the whole run, when not empty
  // Set (from a signal handler, say) to stop starting models; those being drawn finish, the
  // others are skipped ("not started: interrupted"), and Chromium and its profile are removed.
  const std::atomic<bool>* cancel = nullptr;
  // Called on one thread at a time when an item starts and when it finishes (as `batch` does).
  std::function<void(const BatchProgress&)> progress;
};

// Draws the thumbnails. A model that fails is an item with its error (naming it); the others are
// still drawn. Throws meshport::Error when the run cannot start (Chromium does not start, the
// output folder cannot be made) or the sheet cannot be written.
BatchResult thumbnails(const ThumbnailOptions& options);

// The up-to-date stamp's content: what changes a thumbnail (docs/viewer.md).
std::string thumbnail_fingerprint(const ThumbnailOptions& options);

}  // namespace meshport::view
