// A child process spoken to over pipes, line by line: how `makruk match`
// drives UCI engines.
#pragma once

#include <string>
#include <sys/types.h>

namespace makruk::engine {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Runs `command` through /bin/sh. False when it cannot be started.
  bool start(const std::string& command);
  bool running() const { return pid_ > 0; }
  bool write_line(const std::string& line);
  // Reads one line, waiting at most timeout_ms. False on time-out or end of output.
  enum class Read { Line, Timeout, Closed };
  Read read_line(std::string& line, int timeout_ms);
  // Closes the pipes and ends the process (after a grace period).
  void stop();

 private:
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffer_;
};

}  // namespace makruk::engine
