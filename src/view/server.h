// `meshport view`'s HTTP server: the Site's routes on 127.0.0.1 only (cpp-httplib), stopping when
// no page has polled /heartbeat for a while, at a time limit, or on stop() (docs/viewer.md).
#pragma once

#include "view/site.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace meshport::view {

struct ServeOptions {
  uint16_t port = 0;        // 0: a free port
  double idle_seconds = 30;  // stop this long after the last heartbeat (the page polls every 5 s)
  double first_seconds = 300;  // ... or this long after the start when no heartbeat came yet
  double timeout_seconds = 0;  // stop this long after the start; 0: no limit
};

class Server {
 public:
  explicit Server(const Site& site);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds 127.0.0.1:options.port; returns the port, throws meshport::Error when it cannot.
  uint16_t bind(const ServeOptions& options);
  // Serves until stopped (by the heartbeat or time rules, or by stop() from another thread).
  void run();
  void stop();
  uint16_t port() const { return port_; }
  // Why run() returned: "idle", "timeout" or "stopped".
  const char* stop_reason() const { return reason_.load(); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  std::atomic<const char*> reason_{"stopped"};
};

// Starts the desktop's default browser on `url` (xdg-open on Linux, the shell's association on
// Windows) without waiting for it: empty, or why it could not be started.
std::string open_in_browser(const std::string& url);

}  // namespace meshport::view
