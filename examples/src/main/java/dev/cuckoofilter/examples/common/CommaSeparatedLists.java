package dev.cuckoofilter.examples.common;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The values of the options that take comma-separated lists of names (picocli's {@code split = ","}, such as
 * {@code --keys id,name}), as people write lists: each element without the blanks around it ({@code --keys "id, name"}
 * is {@code id} and {@code name}), and an empty element ({@code --keys "id,,name"}, {@code --keys ","},
 * {@code --keys "id,"}) refused naming the option, as picocli would keep the blanks, take {@code ,} for no element
 * and drop empty trailing ones unseen.
 *
 * <p>Applied by {@link CommandRunner} to every matched option declared with {@code split = ","} whose elements are
 * strings, after parsing and before the command runs, so that a new list option needs nothing of its own.
 */
public final class CommaSeparatedLists {
  private static final String SEPARATOR = ",";

  private CommaSeparatedLists() {}

  /**
   * Replaces the value of each comma-separated list option matched on the command line (of the command and its
   * subcommands) by the elements of its occurrences, each stripped of surrounding blanks.
   *
   * @throws ParameterException naming the option and its value if an element is empty or blank
   */
  public static void apply(ParseResult parseResult) {
    for (ParseResult r = parseResult; r != null; r = r.hasSubcommand() ? r.subcommand() : null) {
      if (r.isUsageHelpRequested() || r.isVersionHelpRequested()) {
        return; // the command prints its help and does nothing else
      }
      for (OptionSpec option : r.matchedOptions()) {
        if (applies(option)) {
          option.setValue(value(option, elements(r, option)));
        }
      }
    }
  }

  /** Whether {@link #apply} handles {@code option}: a list or array of strings, declared with {@code split = ","}. */
  static boolean applies(OptionSpec option) {
    return SEPARATOR.equals(option.splitRegex()) && option.auxiliaryTypes()[0] == String.class
        && (option.type().isArray() || option.type() == List.class);
  }

  /** The elements of all occurrences of {@code option}, stripped, in order. */
  private static List<String> elements(ParseResult r, OptionSpec option) {
    List<String> elements = new ArrayList<>();
    for (String given : option.originalStringValues()) {
      String[] parts = given.split(SEPARATOR, -1); // keeps empty trailing elements, which split(",") drops
      for (int i = 0; i < parts.length; i++) {
        String element = parts[i].strip();
        if (element.isEmpty()) {
          throw new ParameterException(r.commandSpec().commandLine(), option.longestName() + " '" + given + "': "
              + option.paramLabel() + " " + (i + 1) + " of " + parts.length + " is empty; give "
              + option.paramLabel() + "[" + SEPARATOR + option.paramLabel() + "...] (blanks around each are ignored)");
        }
        elements.add(element);
      }
    }
    return elements;
  }

  /** {@code elements} as the option's type holds them: a {@code String[]} or a list. */
  private static Object value(OptionSpec option, List<String> elements) {
    return option.type().isArray() ? elements.toArray(new String[0]) : elements;
  }
}
