#pragma once
// Public header of the io module (adi::io): configs and files.
#include <adi/io/checkpoint.hpp>
#include <adi/io/config.hpp>
#include <adi/io/hdf5.hpp>
#include <adi/io/heat_flux.hpp>
#include <adi/io/identity.hpp>
#include <adi/io/lock.hpp>
#include <adi/io/point_probes.hpp>
#include <adi/io/probe.hpp>
#include <adi/io/provenance.hpp>
#include <adi/io/start.hpp>
#include <adi/io/xdmf.hpp>
