#include "generate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string_view>
#include <vector>

namespace meshport::bench {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Deterministic pseudo-random value in [0, 1) for (seed, a, b).
double unit(uint64_t seed, uint64_t a, uint64_t b) {
  return static_cast<double>(mix(seed ^ mix(a * 0x100000001b3ull + b)) >> 11) * 0x1.0p-53;
}

struct Quat {
  double x, y, z, w;
};

Quat axis_angle(double ax, double ay, double az, double angle) {
  double s = std::sin(angle / 2);
  return {ax * s, ay * s, az * s, std::cos(angle / 2)};
}

Quat mul(const Quat& a, const Quat& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

// Text output: accumulates into a buffer, flushed to a FILE* every ~1 MB when there is one.
class Out {
 public:
  Out(int precision, std::FILE* file) : precision_(std::clamp(precision, 1, 17)), file_(file) {}

  void text(std::string_view s) { buf_.append(s); }
  void quoted(std::string_view cmd, std::string_view name) {
    buf_.append(cmd);
    buf_.append(" \"");
    buf_.append(name);
    buf_.append("\"");
  }
  void num(double v) {
    if (v == 0) v = 0;  // never "-0"
    char tmp[48];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::general, precision_);
    buf_ += ' ';
    buf_.append(tmp, r.ptr);
  }
  void integer(int64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_ += ' ';
    buf_.append(tmp, r.ptr);
  }
  void pose(const double t[3], const Quat& q, double s) {
    text("\tpq");
    for (int i = 0; i < 3; ++i) num(t[i]);
    num(q.x), num(q.y), num(q.z), num(q.w);
    num(s), num(s), num(s);
    end_line();
  }
  void end_line() {
    buf_ += '\n';
    if (file_ && buf_.size() >= (1u << 20)) flush();
  }
  void flush() {
    if (!file_ || buf_.empty()) return;
    if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) ok_ = false;
    written_ += buf_.size();
    buf_.clear();
  }
  std::string& buffer() { return buf_; }
  uint64_t bytes() const { return written_ + buf_.size(); }
  bool ok() const { return ok_; }

 private:
  std::string buf_;
  int precision_;
  std::FILE* file_;
  uint64_t written_ = 0;
  bool ok_ = true;
};

void generate(const GenParams& p, Out& o, GenStats& st) {
  constexpr double kPi = std::numbers::pi;
  const int meshes = std::max(1, p.meshes);
  const int joints = std::max(0, p.joints);
  const int frames = std::max(1, p.frames);
  const int anims = joints ? std::clamp(p.animations, 0, 2) : 0;
  int segs = p.segments > 0 ? p.segments : static_cast<int>(std::lround(std::sqrt(double(p.vertices)) / 4));
  segs = std::max(segs, p.segments > 0 ? 3 : 8);
  const int cols = segs + 1;  // the seam column is duplicated for the texture coordinates
  const uint64_t per_mesh = std::max<uint64_t>(p.vertices / meshes, 1);
  const int rings = static_cast<int>(std::max<int64_t>(2, std::llround(double(per_mesh) / cols)));
  const int intervals = meshes * (rings - 1);  // ring spacing along the whole tube
  const double bone = p.length / std::max(joints, 1);
  const double slope = p.radius * p.taper / p.length;  // -dr/dz, tilts the normals toward the tip
  const double ninv = 1 / std::sqrt(1 + slope * slope);

  st.vertices = uint64_t(meshes) * rings * cols;
  st.triangles = uint64_t(meshes) * (rings - 1) * segs * 2;

  o.text("# Inter-Quake Export\n# meshport_genmodel: ");
  o.text(std::to_string(st.vertices) + " vertices, " + std::to_string(st.triangles) + " triangles, " +
         std::to_string(joints) + " joints, seed " + std::to_string(p.seed) + "\n\n");

  // Skeleton: a chain up the tube, each joint twisted a little about the tube's axis.
  std::vector<Quat> twist(joints);
  for (int i = 0; i < joints; ++i) {
    twist[i] = axis_angle(0, 0, 1, (unit(p.seed, 1, i) - 0.5) * 0.4);
    o.quoted("joint", p.name + ".bone" + std::to_string(i));
    o.integer(i - 1);
    o.end_line();
    double t[3] = {0, 0, i ? bone : 0};
    o.pose(t, twist[i], 1);
  }

  for (int m = 0; m < meshes; ++m) {
    o.text("\n");
    o.quoted("mesh", p.name + "." + std::to_string(m));
    o.end_line();
    o.quoted("\tmaterial", p.name + "_skin" + std::to_string(m));
    o.end_line();
    for (int k = 0; k < rings; ++k) {
      const int g = m * (rings - 1) + k;  // global ring: a section's last ring equals the next one's first
      const double t = double(g) / intervals, z = t * p.length, r = p.radius * (1 - p.taper * t);
      const double sj = t * joints;  // position along the chain in joint lengths
      for (int j = 0; j < cols; ++j) {
        const int jj = j % segs;
        const double a = 2 * kPi * jj / segs, c = std::cos(a), s = std::sin(a);
        const double jit = 1 + 0.01 * (unit(p.seed, g, jj) - 0.5);
        o.text("vp"), o.num(r * jit * c), o.num(r * jit * s), o.num(z), o.end_line();
        o.text("\tvt"), o.num(double(j) / segs), o.num(t), o.end_line();
        o.text("\tvn"), o.num(c * ninv), o.num(s * ninv), o.num(slope * ninv), o.end_line();
        if (p.tangents) o.text("\tvx"), o.num(-s), o.num(c), o.num(0), o.num(1), o.end_line();
        if (!joints) continue;
        // 2-4 influences: the nearest joints, weighted by distance to their centres.
        const int n = std::min(joints, 2 + int(mix(p.seed + uint64_t(g) * 7919 + jj) % 3));
        int idx[5];
        double w[5], sum = 0;
        int cnt = 0;
        const int base = static_cast<int>(std::floor(sj));
        for (int b = base - 2; b <= base + 2; ++b) {
          if (b < 0 || b >= joints) continue;
          idx[cnt] = b;
          w[cnt++] = 1 / (0.25 + (sj - b - 0.5) * (sj - b - 0.5));
        }
        for (int x = 0; x < cnt; ++x)  // sort by weight, heaviest first
          for (int y = x + 1; y < cnt; ++y)
            if (w[y] > w[x]) std::swap(w[x], w[y]), std::swap(idx[x], idx[y]);
        cnt = std::min(cnt, n);
        for (int x = 0; x < cnt; ++x) sum += w[x];
        o.text("\tvb");
        for (int x = 0; x < cnt; ++x) o.integer(idx[x]), o.num(w[x] / sum);
        o.end_line();
      }
    }
    // Two triangles per grid cell, clockwise seen from outside as IQE expects.
    for (int k = 0; k + 1 < rings; ++k)
      for (int j = 0; j < segs; ++j) {
        const int64_t a = int64_t(k) * cols + j, b = a + 1, d = a + cols, c = d + 1;
        o.text("fm"), o.integer(a), o.integer(c), o.integer(b), o.end_line();
        o.text("fm"), o.integer(a), o.integer(d), o.integer(c), o.end_line();
      }
  }

  // "wave": a looping travelling wave up the chain, the base planted. "curl": the chain rolls up, shrinking a little.
  for (int an = 0; an < anims; ++an) {
    o.text("\n");
    o.quoted("animation", an == 0 ? "wave" : "curl");
    o.end_line();
    o.text("\tframerate"), o.num(p.framerate), o.end_line();
    if (an == 0) o.text("\tloop\n");
    const double amp = 0.1 + 1.2 / joints;
    for (int f = 0; f < frames; ++f) {
      o.text("\nframe\n");
      const double u = frames > 1 ? double(f) / (frames - 1) : 0;
      for (int i = 0; i < joints; ++i) {
        if (an == 0) {
          const double ph = 2 * kPi * f / frames - 0.6 * i, beta = (unit(p.seed, 2, i) - 0.5) * 1.5;
          Quat q = mul(twist[i], axis_angle(std::cos(beta), std::sin(beta), 0, amp * std::sin(ph)));
          double t[3] = {0, 0, i ? bone * (1 + 0.03 * std::sin(ph + 1)) : 0};
          o.pose(t, q, 1);
        } else {
          Quat q = mul(twist[i], axis_angle(0, 1, 0, u * 2.5 / joints));
          double t[3] = {i ? 0 : 0.1 * p.length * u, 0, i ? bone : 0};
          o.pose(t, q, 1 - 0.01 * u * (1 + unit(p.seed, 3, i)));
        }
      }
    }
  }
  st.bytes = o.bytes();
}

}  // namespace

std::string generate_iqe(const GenParams& params, GenStats* stats) {
  Out o(params.precision, nullptr);
  o.buffer().reserve(size_t(params.vertices) * 230 + 4096);
  GenStats st;
  generate(params, o, st);
  if (stats) *stats = st;
  return std::move(o.buffer());
}

bool write_iqe(const GenParams& params, std::FILE* out, GenStats* stats) {
  Out o(params.precision, out);
  GenStats st;
  generate(params, o, st);
  o.flush();
  if (stats) *stats = st;
  return o.ok();
}

}  // namespace meshport::bench
