#include "process.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace makruk::engine {

ChildProcess::~ChildProcess() { stop(); }

bool ChildProcess::start(const std::string& command) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return false;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    return false;
  }
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  pid_ = pid;
  to_child_ = in[1];
  from_child_ = out[0];
  buffer_.clear();
  return true;
}

bool ChildProcess::write_line(const std::string& line) {
  if (to_child_ < 0) return false;
  std::string data = line + "\n";
  const char* p = data.data();
  size_t left = data.size();
  while (left) {
    ssize_t n = write(to_child_, p, left);
    if (n <= 0) return false;
    p += n;
    left -= size_t(n);
  }
  return true;
}

ChildProcess::Read ChildProcess::read_line(std::string& line, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      buffer_.erase(0, nl + 1);
      return Read::Line;
    }
    if (from_child_ < 0) return Read::Closed;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return Read::Timeout;
    pollfd pfd{from_child_, POLLIN, 0};
    int r = poll(&pfd, 1, int(left));
    if (r < 0) return Read::Closed;
    if (r == 0) return Read::Timeout;
    char chunk[4096];
    ssize_t n = read(from_child_, chunk, sizeof chunk);
    if (n <= 0) {
      close(from_child_);
      from_child_ = -1;
      if (buffer_.empty()) return Read::Closed;
      buffer_ += '\n';  // hand out the last, unterminated line
      continue;
    }
    buffer_.append(chunk, size_t(n));
  }
}

void ChildProcess::stop() {
  if (pid_ <= 0) return;
  write_line("quit");
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
  for (int i = 0; i < 50; ++i) {  // up to half a second to quit by itself
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace makruk::engine
