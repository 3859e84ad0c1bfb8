/**
 * {@code cuckoo}, the command-line tool for stored filters on any Hadoop file system, without Spark
 * (docs/JOBS.md): {@link dev.cuckoofilter.examples.cli.CuckooCli} and its subcommands {@code info},
 * {@code contains}, {@code verify}, {@code merge}, {@code diff} and {@code build} (from Parquet files, with
 * parquet-hadoop). Nothing here may use Spark's classes: the tool's jar has none.
 */
package dev.cuckoofilter.examples.cli;
