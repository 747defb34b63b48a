// The operators' figures (GET /metrics), in Prometheus' text format: each
// part adds its own, the network layer serves them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace makruk::server {

class MetricsText {
 public:
  // A value that goes up and down (tables in memory, a queue's length).
  void gauge(std::string_view name, std::string_view help, double value) { add(name, help, "gauge", value); }
  // A count that only grows while the process runs (moves stored).
  void counter(std::string_view name, std::string_view help, double value) { add(name, help, "counter", value); }
  const std::string& text() const { return text_; }
  static constexpr const char* CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

 private:
  void add(std::string_view name, std::string_view help, std::string_view type, double value) {
    text_ += "# HELP makruk_";
    text_ += name;
    text_ += ' ';
    text_ += help;
    text_ += "\n# TYPE makruk_";
    text_ += name;
    text_ += ' ';
    text_ += type;
    text_ += "\nmakruk_";
    text_ += name;
    text_ += ' ';
    const auto whole = static_cast<int64_t>(value);
    text_ += static_cast<double>(whole) == value ? std::to_string(whole) : std::to_string(value);
    text_ += '\n';
  }
  std::string text_;
};

}  // namespace makruk::server
