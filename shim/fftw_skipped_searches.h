// The FFTW searches the shim skips, made when a program looks at FFTW's wisdom.
//
// For a transform the device computes, the shim plans FFTW's CPU path with FFTW_ESTIMATE
// in place of the caller's search (MEASURE, PATIENT, EXHAUSTIVE; shim/fftw_plan.h): the
// search costs time and the plan it finds may never run. FFTW would have wisdom from that
// search (for the transform, for the smaller transforms it solved on the way, and for the
// other forms of the same transform), and a program sees wisdom in two ways: an
// FFTW_WISDOM_ONLY planner call that FFTW cannot answer, and wisdom read out (export).
// Then, and only then, the skipped searches of the precision are made, by FFTW on scratch
// arrays of the planned arrays' layout and alignment (its wisdom tells problems apart by
// both), with the caller's flags and the planner threads of the time (where FFTW tells
// them: 3.3.9 and later), so that FFTW's answer is the one it would have given without the
// shim. One exception: a child forked from a process that may have run FFTW's threads does
// not make a search on more than one thread, or on a number FFTW (before 3.3.9) does not
// tell (it would wait for ever for workers that are not in the child).
#pragma once

#include "shim/fftw_descriptions.h"

namespace gpushim::shim {

// Records the search that planning `planned` with the caller's `flags` would have made.
void skip_search(const PlannedTransform& planned, unsigned flags);

// Makes every skipped search of one precision (fftwf_ when `single`): before FFTW's wisdom
// of it is read out, or asked for by FFTW_WISDOM_ONLY. True when FFTW may have wisdom now
// that it did not have (a search was made, here or by another thread meanwhile).
bool make_skipped_searches(bool single);

// Forgets the skipped searches of one precision: FFTW forgets its wisdom (forget_wisdom,
// cleanup), and FFTW_WISDOM_ONLY then finds nothing, with or without the shim.
void forget_skipped_searches(bool single);

}  // namespace gpushim::shim
