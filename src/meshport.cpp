// Format registry and the read / write / convert entry points.
#include <meshport/meshport.h>

#include "formats/iqe.h"
#include "formats/iqm.h"
#include "io.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace meshport {

const std::vector<FormatInfo>& formats() {
  static const std::vector<FormatInfo> table = {
      {Format::Iqe, "iqe", "Inter-Quake Export (text)", {".iqe"}, true, true},
      {Format::Iqm, "iqm", "Inter-Quake Model (binary; v2 written, v1 and v2 read)", {".iqm"}, true, true},
  };
  return table;
}

const FormatInfo& format_info(Format f) {
  for (const auto& i : formats())
    if (i.format == f) return i;
  return formats().front();
}

static std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

std::optional<Format> format_from_name(std::string_view name) {
  std::string n = lower(name);
  if (!n.empty() && n.front() == '.') n.erase(0, 1);
  for (const auto& i : formats()) {
    if (i.name == n) return i.format;
    for (auto ext : i.extensions)
      if (ext.substr(1) == n) return i.format;
  }
  return std::nullopt;
}

std::optional<Format> format_from_path(std::string_view path) {
  std::string p = lower(path);
  for (const auto& i : formats())
    for (auto ext : i.extensions)
      if (p.size() > ext.size() && p.compare(p.size() - ext.size(), ext.size(), ext) == 0) return i.format;
  return std::nullopt;
}

static Format resolve(const std::optional<Format>& given, const std::string& path) {
  if (given) return *given;
  if (auto f = format_from_path(path)) return *f;
  fail(path, "unknown format: cannot tell it from the file name; give it with --from/--to");
}

Scene read_memory(std::span<const uint8_t> data, Format format, const std::string& name, Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  switch (format) {
    case Format::Iqe:
      return iqe::read(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, d);
    case Format::Iqm:
      return iqm::read(data, name, d);
  }
  fail(name, "format cannot be read");
}

Scene read(const std::string& path, const ReadOptions& options, Diagnostics* diags) {
  Format f = resolve(options.format, path);
  if (!format_info(f).can_read) fail(path, std::string(format_info(f).name) + " cannot be read");
  std::vector<uint8_t> data = io::read_file(path);
  return read_memory(data, f, path, diags);
}

std::vector<uint8_t> write_memory(const Scene& scene, Format format, const WriteOptions& options, Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  switch (format) {
    case Format::Iqe: {
      std::string text = iqe::write(scene, d);
      return std::vector<uint8_t>(text.begin(), text.end());
    }
    case Format::Iqm:
      return iqm::write(scene, options, d);
  }
  fail("<memory>", "format cannot be written");
}

void write(const Scene& scene, const std::string& path, const WriteOptions& options, Diagnostics* diags) {
  Format f = resolve(options.format, path);
  if (!format_info(f).can_write) fail(path, std::string(format_info(f).name) + " cannot be written");
  std::vector<uint8_t> bytes;
  size_t first_new = diags ? diags->items.size() : 0;
  auto name_file = [&] {
    if (!diags) return;
    for (size_t i = first_new; i < diags->items.size(); ++i)
      if (diags->items[i].file.empty()) diags->items[i].file = path;
  };
  try {
    bytes = write_memory(scene, f, options, diags);
    name_file();
  } catch (const Error& e) {
    name_file();
    Diagnostic d = e.diagnostic();
    if (d.file.empty()) d.file = path;
    throw Error(d);
  }
  io::write_file_atomic(path, bytes);
}

Scene convert(const std::vector<std::string>& inputs, const std::string& output, const ConvertOptions& options,
              Diagnostics* diags) {
  if (inputs.empty()) fail(output, "no input files");
  Scene scene = read(inputs[0], options.read, diags);
  for (size_t i = 1; i < inputs.size(); ++i) {
    Scene extra = read(inputs[i], options.read, diags);
    attach_animations(scene, extra, inputs[i], diags);
  }
  process(scene, options.process, diags);
  write(scene, output, options.write, diags);
  return scene;
}

}  // namespace meshport
