// Texture files shared by the models of one batch (docs/batch.md, "Texture pages"): each file is
// mapped once and turned into its glTF image once (PNG and JPEG as they are, a view into the
// mapping; other formats converted to PNG), then handed to every model that uses it, until the
// memory limit evicts it (least recently used first). Keyed by the file (device, inode), its
// modification time and size: a file changed on disk is read again. With an output tree set,
// it also writes each page once there for glb files that reference their images
// (--external-textures). A plain object the batch owns and passes to the writers through
// WriteOptions::texture_cache; every member is thread-safe. No global state.
#pragma once

#include "core/io.h"

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace meshport {

// One texture file: its bytes and its glTF image (or why there is none).
struct CachedTexture {
  io::FileBytes file;                  // the file's bytes, mapped
  std::string read_error;              // set: the file could not be read (file is empty)
  std::vector<uint8_t> converted;      // the PNG a TGA, PCX, DDS, ... became; empty when kept
  std::string mime;                    // "image/png" or "image/jpeg"; empty: no glTF image
  std::string image_error;             // why there is no glTF image (read_error included)
  std::string path;                    // the path it was first read by
  size_t hash = 0;                     // std::hash of gltf_bytes() as a string_view
  std::span<const uint8_t> bytes() const { return file.bytes(); }
  std::span<const uint8_t> gltf_bytes() const {
    return converted.empty() ? file.bytes() : std::span<const uint8_t>(converted);
  }
  bool is_converted() const { return !converted.empty(); }
  uint64_t memory() const { return file.bytes().size() + converted.size(); }
};

struct TextureCacheStats {
  uint64_t reads = 0;       // files read (a miss: new, changed on disk, or evicted before)
  uint64_t hits = 0;        // requests served without reading
  uint64_t conversions = 0; // glTF images made by converting (TGA, PCX, DDS, ... to PNG)
  uint64_t evictions = 0;   // entries dropped for the memory limit
  uint64_t pages_written = 0;  // shared pages written into the output tree
};

class TextureCache {
 public:
  // `max_bytes`: the most memory held (mapped files and converted images); an entry in use by a
  // writer stays alive until it is done with it.
  explicit TextureCache(uint64_t max_bytes);
  TextureCache(const TextureCache&) = delete;
  TextureCache& operator=(const TextureCache&) = delete;

  // The texture file at `path`, read and converted on first use. Never null; errors are in it
  // (read_error / image_error).
  std::shared_ptr<const CachedTexture> get(const std::string& path);

  // Shared pages (docs/batch.md): written below `output_root`, at the page's place relative to
  // the deepest of `input_roots` holding it, else in `output_root`/textures/.
  void share_pages(const std::string& output_root, const std::vector<std::string>& input_roots);
  bool shares_pages() const { return !output_root_.empty(); }
  // The page's file in the output tree (written the first time; a converted page gets ".png"),
  // or empty with `error` set when it cannot be written.
  std::string place(const std::shared_ptr<const CachedTexture>& page, std::string& error);

  TextureCacheStats stats() const;

 private:
  using Key = std::tuple<uint64_t, uint64_t, int64_t, uint64_t>;  // device, inode, mtime (ns), size
  struct Slot {
    std::mutex fill;
    std::shared_ptr<const CachedTexture> value;
    uint64_t memory = 0;
    std::list<Key>::iterator lru;
  };
  struct Placed {
    std::mutex fill;
    bool done = false;
    std::string dest, error;
  };
  std::shared_ptr<Slot> slot_for(const Key& key);
  void account(const Key& key, const std::shared_ptr<Slot>& slot);
  std::string destination(const std::string& canonical, bool converted);

  mutable std::mutex lock_;
  uint64_t max_bytes_, held_ = 0;
  std::map<Key, std::shared_ptr<Slot>> slots_;
  std::list<Key> lru_;  // most recent first
  TextureCacheStats stats_;
  std::string output_root_;
  std::vector<std::string> input_roots_;  // canonical, deepest first
  std::map<std::string, std::shared_ptr<Placed>> placed_;  // by the page's canonical path
  std::map<std::string, std::string> claimed_;  // destination (lower case) -> canonical page path
};

}  // namespace meshport
