#include <adi/grid.hpp>

#include <algorithm>
#include <array>
#include <sstream>

namespace adi {

void Layout3::validate(const char* what) const {
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 1) {
      std::ostringstream s;
      s << what << ": extent along " << axis_name(static_cast<Axis>(a)) << " is " << n[a] << ", expected >= 1";
      ADI_THROW(InvalidArgument, s.str());
    }
    if (stride[a] < 1 && n[a] > 1) {
      std::ostringstream s;
      s << what << ": stride along " << axis_name(static_cast<Axis>(a)) << " is " << stride[a]
        << ", expected >= 1";
      ADI_THROW(InvalidArgument, s.str());
    }
  }
  // Axes sorted by stride must nest: each stride at least the extent of the
  // previous axis times its stride, otherwise two points share an element.
  std::array<int, 3> order{0, 1, 2};
  std::sort(order.begin(), order.end(), [&](int x, int y) { return stride[x] < stride[y]; });
  for (int q = 1; q < 3; ++q) {
    const int prev = order[q - 1], cur = order[q];
    if (n[cur] > 1 && n[prev] > 1 && stride[cur] < stride[prev] * n[prev]) {
      ADI_THROW(InvalidArgument, std::string(what) + ": strides overlap (" + str() + ")");
    }
  }
}

std::string Layout3::str() const {
  std::ostringstream s;
  s << n[0] << "x" << n[1] << "x" << n[2] << " strides (" << stride[0] << ", " << stride[1] << ", " << stride[2]
    << ")";
  return s.str();
}

}  // namespace adi
