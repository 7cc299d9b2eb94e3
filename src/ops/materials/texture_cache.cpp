// Texture files shared by the models of a batch (texture_cache.h).
#include "ops/materials/texture_cache.h"

#include "core/os.h"
#include "core/text.h"
#include "core/utf8_path.h"
#include "image/image.h"
#include "ops/materials/textures.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>


#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <string_view>
#include <system_error>

namespace fs = std::filesystem;

namespace meshport {

namespace {

std::shared_ptr<CachedTexture> failed(const std::string& path, std::string error) {
  auto t = std::make_shared<CachedTexture>();
  t->path = path;
  t->read_error = t->image_error = std::move(error);
  return t;
}

// The file read (mapped) and its glTF image made, errors worded as read_texture_file's.
std::shared_ptr<CachedTexture> fill(const std::string& path) {
  auto t = std::make_shared<CachedTexture>();
  t->path = path;
  try {
    t->file = io::read_file_bytes(path, 1);  // every non-empty regular file mapped
  } catch (const Error&) {
    t->read_error = t->image_error = "cannot read it";
    return t;
  }
  image::ConvertedImage c = image::to_gltf_image(t->file.bytes(), path, image::ImageLimits{}, false);
  t->image_error = std::move(c.error);
  t->mime = std::move(c.mime_type);
  if (c.converted) t->converted = std::move(c.bytes);
  const std::span<const uint8_t> b = t->gltf_bytes();
  if (t->image_error.empty())
    t->hash = std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  return t;
}

std::string canonical_of(const std::string& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(utf8_path(p), ec);
  return ec ? generic_utf8(fs::absolute(utf8_path(p), ec).lexically_normal()) : generic_utf8(c);
}

bool is_below(const std::string& path, const std::string& root) {
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         (root.back() == '/' || path[root.size()] == '/');
}

std::string numbered(const fs::path& p, size_t n) {
  if (n == 1) return generic_utf8(p);
  return generic_utf8(p.parent_path() /
                      utf8_path(fmt::format("{}-{}{}", path_utf8(p.stem()), n, path_utf8(p.extension()))));
}

}  // namespace

TextureCache::TextureCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

std::shared_ptr<TextureCache::Slot> TextureCache::slot_for(const Key& key) {
  std::lock_guard guard(lock_);
  auto [it, added] = slots_.try_emplace(key);
  if (added) {
    it->second = std::make_shared<Slot>();
    lru_.push_front(key);
  } else {
    lru_.splice(lru_.begin(), lru_, it->second->lru);
  }
  it->second->lru = lru_.begin();
  return it->second;
}

// Counts a newly filled slot's memory and evicts the least recently used filled slots (never
// `key`'s) while over the limit.
void TextureCache::account(const Key& key, const std::shared_ptr<Slot>& slot) {
  std::lock_guard guard(lock_);
  auto it = slots_.find(key);
  if (it == slots_.end() || it->second != slot || slot->memory) return;
  slot->memory = std::max<uint64_t>(1, slot->value->memory());
  held_ += slot->memory;
  for (auto l = lru_.end(); held_ > max_bytes_ && l != lru_.begin();) {
    --l;
    auto s = slots_.find(*l);
    if (*l == key || s->second->memory == 0) continue;  // the new one, or one still being read
    held_ -= s->second->memory;
    slots_.erase(s);
    l = lru_.erase(l);
    ++stats_.evictions;
  }
}

std::shared_ptr<const CachedTexture> TextureCache::get(const std::string& path) {
  os::FileStatus st;
  if (!os::status(path, st))
    return failed(path, "cannot read it: " + std::error_code(errno, std::generic_category()).message());
  if (st.size > ops::kMaxTextureFileBytes)
    return failed(path, fmt::format("it has {} bytes, more than the {} MiB a texture may have", st.size,
                                    ops::kMaxTextureFileBytes >> 20));
  const Key key{st.device, st.inode, st.mtime_ns, st.size};
  std::shared_ptr<Slot> slot = slot_for(key);
  std::shared_ptr<const CachedTexture> value;
  bool read = false;
  {
    std::lock_guard guard(slot->fill);
    if (!slot->value) {
      slot->value = fill(path);
      read = true;
    }
    value = slot->value;
  }
  {
    std::lock_guard guard(lock_);
    ++(read ? stats_.reads : stats_.hits);
    if (read && value->is_converted()) ++stats_.conversions;
  }
  if (read) account(key, slot);
  return value;
}

void TextureCache::share_pages(const std::string& output_root, const std::vector<std::string>& input_roots) {
  std::lock_guard guard(lock_);
  std::error_code ec;
  output_root_ = generic_utf8(fs::absolute(utf8_path(output_root.empty() ? "." : output_root), ec).lexically_normal());
  while (output_root_.size() > 1 && output_root_.back() == '/') output_root_.pop_back();
  input_roots_.clear();
  for (const std::string& r : input_roots) {
    std::string c = canonical_of(r.empty() ? "." : r);
    while (c.size() > 1 && c.back() == '/') c.pop_back();
    input_roots_.push_back(c);
  }
  std::sort(input_roots_.begin(), input_roots_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

// Where a page goes: its place below the deepest input root holding it, else textures/; a
// converted page as ".png"; numbered ("x-2.png") when another page or an input has the name.
std::string TextureCache::destination(const std::string& canonical, bool converted) {
  std::lock_guard guard(lock_);
  fs::path rel;
  for (const std::string& root : input_roots_)
    if (is_below(canonical, root)) {
      rel = utf8_path(canonical.substr(root.size() + (root.back() == '/' ? 0 : 1)));
      break;
    }
  if (rel.empty()) rel = fs::path("textures") / utf8_path(canonical).filename();
  if (converted) rel.replace_extension(".png");
  const fs::path base = utf8_path(output_root_) / rel;
  for (size_t n = 1;; ++n) {
    const std::string dest = numbered(base, n);
    auto it = claimed_.find(text::lower(dest));
    if (it != claimed_.end() && it->second != canonical) continue;
    const std::string c = canonical_of(dest);
    std::error_code ec;
    const bool input = c != canonical && fs::exists(utf8_path(c), ec) &&
                       std::any_of(input_roots_.begin(), input_roots_.end(),
                                   [&](const std::string& r) { return is_below(c, r); });
    if (input) continue;  // never over a file of the input tree
    claimed_[text::lower(dest)] = canonical;
    return dest;
  }
}

std::string TextureCache::place(const std::shared_ptr<const CachedTexture>& page, std::string& error) {
  const std::string canonical = canonical_of(page->path);
  std::shared_ptr<Placed> p;
  {
    std::lock_guard guard(lock_);
    auto& x = placed_[canonical + (page->is_converted() ? "|png" : "")];
    if (!x) x = std::make_shared<Placed>();
    p = x;
  }
  std::lock_guard guard(p->fill);
  if (!p->done) {
    p->done = true;
    p->dest = destination(canonical, page->is_converted());
    if (canonical_of(p->dest) != canonical) {  // else the page is already there (output = input tree)
      try {
        std::error_code ec;
        fs::create_directories(utf8_path(p->dest).parent_path(), ec);
        io::write_file_atomic(p->dest, page->gltf_bytes(), false);
        std::lock_guard g(lock_);
        ++stats_.pages_written;
      } catch (const Error& e) {
        p->error = e.what();
        p->dest.clear();
      }
    }
  }
  error = p->error;
  return p->dest;
}

TextureCacheStats TextureCache::stats() const {
  std::lock_guard guard(lock_);
  return stats_;
}

}  // namespace meshport
