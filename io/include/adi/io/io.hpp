#pragma once
// Public header of the io module (adi::io): configs and files.
#include <adi/io/config.hpp>
