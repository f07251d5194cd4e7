// The FFTW searches the shim skips, made when a program looks at FFTW's wisdom.
//
// For a transform the device computes, the shim plans FFTW's CPU path with FFTW_ESTIMATE
// in place of the caller's search (MEASURE, PATIENT, EXHAUSTIVE; shim/fftw_plan.h): the
// search costs time and the plan it finds may never run. FFTW would have wisdom from that
// search, and a program sees wisdom in two ways: an FFTW_WISDOM_ONLY planner call, and
// wisdom read out (export). Then, and only then, the skipped searches are made, by FFTW on
// scratch arrays of the planned arrays' layout and alignment (its wisdom tells problems
// apart by both), with the caller's flags and the planner threads of the time, so that
// FFTW's answer is the one it would have given without the shim.
#pragma once

#include "shim/fftw_descriptions.h"

namespace gpushim::shim {

// Records the search that planning `planned` with the caller's `flags` would have made.
void skip_search(const PlannedTransform& planned, unsigned flags);

// Makes the skipped searches of the problem `planned` describes (whatever the arrays'
// alignment and the flags); true when there were any.
bool make_skipped_searches_of(const PlannedTransform& planned);

// Makes every skipped search of one precision: before FFTW's wisdom of it is read out.
void make_skipped_searches(bool single);

// Forgets the skipped searches of one precision: FFTW forgets its wisdom (forget_wisdom,
// cleanup), and FFTW_WISDOM_ONLY then finds nothing, with or without the shim.
void forget_skipped_searches(bool single);

}  // namespace gpushim::shim
