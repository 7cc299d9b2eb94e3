// The viewer's HTTP server over cpp-httplib (server.h). Every request goes through respond()
// (site.cpp) from the pre-routing handler: no httplib route, mount point or file handler exists,
// so no part of a request can reach the file system.
#include "view/server.h"

#include "core/os.h"

#include <meshport/diagnostics.h>

#include <httplib.h>

#include <algorithm>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace meshport::view {

using Clock = std::chrono::steady_clock;

struct Server::Impl {
  const Site& site;
  httplib::Server http;
  ServeOptions options;
  std::mutex mutex;
  std::condition_variable wake;
  Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> last_beat;
  bool stop_requested = false;
  bool listen_returned = false;
  explicit Impl(const Site& s) : site(s) {}
};

Server::Server(const Site& site) : impl_(std::make_unique<Impl>(site)) {}
Server::~Server() { stop(); }

uint16_t Server::bind(const ServeOptions& options) {
  Impl& im = *impl_;
  im.options = options;
  im.http.set_payload_max_length(kMaxBodyBytes + 1);
  im.http.set_keep_alive_max_count(100);
  im.http.set_read_timeout(5, 0);
  im.http.set_write_timeout(5, 0);
  im.http.set_pre_routing_handler([this](const httplib::Request& hr, httplib::Response& hres) {
    Request r;
    r.method = hr.method;
    r.path = hr.path;
    r.target = hr.target;
    for (const auto& [name, value] : hr.headers) {
      r.header_bytes += name.size() + value.size();
      if (name.size() == 4 && (name[0] | 0x20) == 'h' && (name[1] | 0x20) == 'o' && (name[2] | 0x20) == 's' &&
          (name[3] | 0x20) == 't')
        r.hosts.push_back(value);
    }
    for (const auto& [key, value] : hr.params) r.query.emplace_back(key, value);
    r.body_bytes = hr.body.size();
    const std::string length = hr.get_header_value("Content-Length");
    if (!length.empty() && length != "0") r.body_bytes = std::max<size_t>(r.body_bytes, 1);
    bool beat = false;
    Response out = respond(impl_->site, r, port_, &beat);
    if (beat) {
      std::lock_guard lock(impl_->mutex);
      impl_->last_beat = Clock::now();
    }
    hres.status = out.status;
    if (out.status >= 400) hres.set_header("Connection", "close");
    hres.set_header("Cache-Control", "no-store");
    hres.set_header("X-Content-Type-Options", "nosniff");
    hres.set_header("Cross-Origin-Resource-Policy", "same-origin");
    if (!out.content_type.empty()) hres.set_content(std::move(out.body), out.content_type.c_str());
    return httplib::Server::HandlerResponse::Handled;
  });
  const int got = options.port ? (im.http.bind_to_port("127.0.0.1", options.port) ? options.port : -1)
                               : im.http.bind_to_any_port("127.0.0.1");
  if (got <= 0) fail("127.0.0.1:" + std::to_string(options.port), "cannot listen (is the port in use?)");
  port_ = uint16_t(got);
  return port_;
}

void Server::run() {
  Impl& im = *impl_;
  std::thread watchdog([this] {
    Impl& w = *impl_;
    std::unique_lock lock(w.mutex);
    while (!w.stop_requested) {
      const Clock::time_point now = Clock::now();
      const auto seconds = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
      if (w.options.timeout_seconds > 0 && now - w.start >= seconds(w.options.timeout_seconds)) {
        reason_ = "timeout";
        break;
      }
      const bool idle = w.last_beat ? now - *w.last_beat >= seconds(w.options.idle_seconds)
                                     : now - w.start >= seconds(std::max(w.options.first_seconds, w.options.idle_seconds));
      if (idle) {
        reason_ = "idle";
        break;
      }
      w.wake.wait_for(lock, std::chrono::milliseconds(100));
    }
    // httplib's stop() does nothing before listening started: wait for it (or for its end).
    while (!w.http.is_running() && !w.listen_returned) w.wake.wait_for(lock, std::chrono::milliseconds(5));
    lock.unlock();
    w.http.stop();
  });
  im.http.listen_after_bind();
  {
    std::lock_guard lock(im.mutex);
    im.listen_returned = true;
    im.stop_requested = true;
  }
  im.wake.notify_all();
  watchdog.join();
}

void Server::stop() {
  if (!impl_) return;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stop_requested = true;
  }
  impl_->wake.notify_all();
}

std::string open_in_browser(const std::string& url) {
  const int error = os::open_browser(url);
  return error == 0 ? std::string() : std::string(std::strerror(error));
}

}  // namespace meshport::view
