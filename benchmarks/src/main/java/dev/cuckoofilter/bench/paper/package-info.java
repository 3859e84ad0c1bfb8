/**
 * The paper's evaluation reproduced from one command ({@link
 * dev.cuckoofilter.bench.paper.PaperReproduction}): one experiment class per table or figure, CSV files
 * and XChart plots, and each of the paper's numbers beside ours. Results: docs/PAPER.md.
 */
package dev.cuckoofilter.bench.paper;
