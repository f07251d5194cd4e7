// What every exported entry point file needs: the visibility of an exported symbol (all
// else is hidden), and a symbol's name as a string once macro arguments are pasted.
#pragma once

#define GPUSHIM_EXPORT __attribute__((visibility("default")))
#define GPUSHIM_STRING(symbol) GPUSHIM_STRING_OF(symbol)
#define GPUSHIM_STRING_OF(symbol) #symbol
