package dev.cuckoofilter.sparkbench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** Minimal "--name value" options for the benchmark programs (the product's CLI uses picocli). */
final class Args {
  private Args() {}

  static Map<String, String> parse(String[] args, Map<String, String> defaults, String usage) {
    Map<String, String> opts = new LinkedHashMap<>(new TreeMap<>(defaults));
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--help")) {
        System.out.println(usage);
        new TreeMap<>(defaults).forEach((k, v) -> System.out.println("  " + k + " (default: " + v + ")"));
        System.exit(0);
      }
      if (!defaults.containsKey(args[i]) || i + 1 >= args.length) {
        throw new IllegalArgumentException("unknown option or missing value: " + args[i] + "; use --help");
      }
      opts.put(args[i], args[++i]);
    }
    return opts;
  }
}
