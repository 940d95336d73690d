#include "util.hpp"

#include <adi/error.hpp>

#include <cmath>
#include <cstdio>

namespace adi::app {

Backend parse_backend(const std::string& s) {
  if (s == "cpu") return Backend::Cpu;
  if (s == "cuda") return Backend::Cuda;
  if (s == "auto") return Backend::Auto;
  ADI_THROW(InvalidArgument, "backend '" + s + "': expected cpu, cuda or auto");
}

Precision parse_precision(const std::string& s) {
  if (s == "float32" || s == "fp32" || s == "f32" || s == "float") return Precision::F32;
  if (s == "float64" || s == "fp64" || s == "f64" || s == "double") return Precision::F64;
  ADI_THROW(InvalidArgument, "precision '" + s + "': expected float32 or float64");
}

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) b /= 1024.0, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", b, unit[u]);
  return buf;
}

std::string human_seconds(double s) {
  char buf[64];
  if (!std::isfinite(s)) return "?";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s / 60), int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s / 3600), int(s / 60) % 60);
  return buf;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o;
}

}  // namespace adi::app
