/**
 * How a filter is sized from an expected item count and a false-positive rate (docs/SIZING.md):
 * bucket size, fingerprint width and table size from the paper's Eq. (5)-(7) and Fig. 3, with tables
 * of any size, not only powers of two.
 */
package dev.cuckoofilter.core.sizing;
