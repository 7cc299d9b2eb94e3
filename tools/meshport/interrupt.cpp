// Ctrl-C handling for the long commands (interrupt.h).
#include "interrupt.h"

#include "terminal.h"

#include <csignal>
#include <cstring>

namespace meshport::cli {

namespace {

std::atomic<bool> g_interrupted{false};
const char* g_message = "";

extern "C" void on_interrupt(int sig) {
  if (g_interrupted.exchange(true)) {  // a second Ctrl-C: stop now
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  static const char head[] = "\ninterrupted: ";
  static const char tail[] = " (Ctrl-C again to stop at once)\n";
  write_stderr_now(head, sizeof head - 1);
  write_stderr_now(g_message, std::strlen(g_message));
  write_stderr_now(tail, sizeof tail - 1);
}

}  // namespace

InterruptScope::InterruptScope(const char* message) {
  g_message = message;
  g_interrupted = false;
  old_int_ = std::signal(SIGINT, on_interrupt);
  old_term_ = std::signal(SIGTERM, on_interrupt);
}

InterruptScope::~InterruptScope() {
  std::signal(SIGINT, old_int_);
  std::signal(SIGTERM, old_term_);
}

const std::atomic<bool>* InterruptScope::flag() const { return &g_interrupted; }

}  // namespace meshport::cli
