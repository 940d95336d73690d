// XDMF 2 sidecar: a temporal collection of 3DCoRectMesh grids.

#include "fsutil.hpp"
#include "h5util.hpp"

#include <adi/io/lock.hpp>
#include <adi/io/xdmf.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace adi::io {

namespace {
std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

/// The shortest %g text that reads back to the same double (0.26, not
/// 0.26000000000000001): times and spacings as users typed them.
std::string num(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}
}  // namespace

std::string xdmf_text(const std::string& h5_name, const GridGeometry& g, Precision p,
                      const std::vector<OutputStep>& steps, const std::vector<std::string>& fields) {
  // Slowest index first everywhere: z y x.
  const std::string dims =
      std::to_string(g.n[2]) + " " + std::to_string(g.n[1]) + " " + std::to_string(g.n[0]);
  const std::string origin = num(g.origin[2]) + " " + num(g.origin[1]) + " " + num(g.origin[0]);
  const std::string spacing = num(g.spacing[2]) + " " + num(g.spacing[1]) + " " + num(g.spacing[0]);
  const char* prec = p == Precision::F32 ? "4" : "8";
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n"
    << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<!-- Written by adi3d; lists only steps already flushed to " << xml_escape(h5_name) << ".\n"
    << "     XDMF order is slowest first: Dimensions nz ny nx, Origin z0 y0 x0, Spacing hz hy hx. -->\n"
    << "<Xdmf Version=\"2.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"u\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const auto& s : steps) {
    x << "      <Grid Name=\"step " << s.step << "\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << num(s.time) << "\"/>\n";
    if (g.stretched()) {
      // A stretched axis: a rectilinear mesh whose node coordinates are the
      // file's /grid/x, /grid/y, /grid/z (VXVYVZ: x first, each of its length).
      x << "        <Topology TopologyType=\"3DRectMesh\" Dimensions=\"" << dims << "\"/>\n"
        << "        <Geometry GeometryType=\"VXVYVZ\">\n";
      for (int a = 0; a < 3; ++a)
        x << "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"" << g.n[a]
          << "\">" << xml_escape(h5_name) << ":/grid/" << "xyz"[a] << "</DataItem>\n";
      x << "        </Geometry>\n";
    } else {
      x << "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims << "\"/>\n"
        << "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        << "          <DataItem Name=\"Origin\" Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"3\">"
        << origin << "</DataItem>\n"
        << "          <DataItem Name=\"Spacing\" Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"3\">"
        << spacing << "</DataItem>\n"
        << "        </Geometry>\n";
    }
    x
      << "        <Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"" << prec << "\" Dimensions=\"" << dims
      << "\">" << xml_escape(h5_name) << ":" << s.dataset << "</DataItem>\n"
      << "        </Attribute>\n";
    // The heat flux: a Vector attribute (ParaView draws it with glyphs),
    // components qx qy qz as the dataset's last axis.
    if (!s.heat_flux.empty())
      x << "        <Attribute Name=\"heat_flux\" AttributeType=\"Vector\" Center=\"Node\">\n"
        << "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"" << prec << "\" Dimensions=\""
        << dims << " 3\">" << xml_escape(h5_name) << ":" << s.heat_flux << "</DataItem>\n"
        << "        </Attribute>\n";
    for (const std::string& f : fields) {
      const std::string name = f.substr(f.find_last_of('/') + 1);
      x << "        <Attribute Name=\"" << xml_escape(name) << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        << "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"" << dims << "\">"
        << xml_escape(h5_name) << ":" << xml_escape(f) << "</DataItem>\n"
        << "        </Attribute>\n";
    }
    x << "      </Grid>\n";
  }
  x << "    </Grid>\n"
    << "  </Domain>\n"
    << "</Xdmf>\n";
  return x.str();
}

void write_xdmf(const std::string& path, const std::string& h5_name, const GridGeometry& g, Precision p,
                const std::vector<OutputStep>& steps, const std::vector<std::string>& fields) {
  const std::string tmp = unique_temp_path(path);
  const std::string text = xdmf_text(h5_name, g, p, steps, fields);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      const int err = errno;
      throw IoError("XDMF file '" + path + "': cannot create " + tmp + " (" + detail::errno_text(err) + ")",
                    __FILE__, __LINE__);
    }
    f << text;
    f.flush();
    if (!f) {
      const int err = errno;
      detail::remove_quietly(tmp);
      throw IoError("XDMF file '" + path + "': cannot write " + tmp + " (" + detail::errno_text(err) + ")",
                    __FILE__, __LINE__);
    }
  }
  detail::fsync_path(tmp);
  try {
    detail::rename_file(tmp, path, "XDMF file");
  } catch (...) {
    detail::remove_quietly(tmp);
    throw;
  }
}

}  // namespace adi::io
