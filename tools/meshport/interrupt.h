// Ctrl-C and SIGTERM for the commands that work through many files (batch, validate, thumbnail):
// the first signal sets a flag the run reads between files, and says so; a second one stops the
// process at once (the signal's default action).
#pragma once

#include <atomic>

namespace meshport::cli {

// While it lives, SIGINT and SIGTERM set flag() and print "interrupted: <message>"; the handlers
// it replaced come back when it ends. One at a time (the flag is the CLI's one piece of
// process-wide state).
class InterruptScope {
 public:
  // `message`: a string literal, e.g. "finishing the files in progress".
  explicit InterruptScope(const char* message);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  const std::atomic<bool>* flag() const;

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

}  // namespace meshport::cli
