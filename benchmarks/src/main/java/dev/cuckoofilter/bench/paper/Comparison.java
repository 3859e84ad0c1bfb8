package dev.cuckoofilter.bench.paper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The paper's numbers beside ours, collected while the experiments run and written as
 * {@code comparison.csv} and a Markdown table ({@code comparison.md}) for the write-up.
 */
final class Comparison {
  /** One number of the paper; {@code ours / paper} is the ratio. */
  record Entry(String source, String quantity, double paper, double ours, String note) {
    double ratio() {
      return ours / paper;
    }
  }

  private final List<Entry> entries = new ArrayList<>();

  void add(String source, String quantity, double paper, double ours, String note) {
    entries.add(new Entry(source, quantity, paper, ours, note));
  }

  List<Entry> entries() {
    return List.copyOf(entries);
  }

  void write(Path directory) {
    Csv csv = new Csv("source", "quantity", "paper", "ours", "ours_over_paper", "note");
    StringBuilder md = new StringBuilder("| source | quantity | paper | ours | ours / paper | note |\n"
        + "| --- | --- | ---: | ---: | ---: | --- |\n");
    for (Entry e : entries) {
      csv.row(e.source, e.quantity, e.paper, e.ours, e.ratio(), e.note);
      md.append("| ").append(e.source).append(" | ").append(e.quantity).append(" | ")
          .append(Csv.significant(e.paper, 4)).append(" | ").append(Csv.significant(e.ours, 4)).append(" | ")
          .append(Csv.significant(e.ratio(), 3)).append(" | ").append(e.note).append(" |\n");
    }
    csv.write(directory.resolve("comparison.csv"));
    try {
      Files.writeString(directory.resolve("comparison.md"), md, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
