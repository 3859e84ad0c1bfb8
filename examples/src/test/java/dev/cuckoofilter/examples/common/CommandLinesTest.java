package dev.cuckoofilter.examples.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.cli.CuckooCli;
import dev.cuckoofilter.examples.jobs.BuildFilterJob;
import dev.cuckoofilter.examples.jobs.PruneJoinJob;
import dev.cuckoofilter.examples.jobs.UpdateFilterJob;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The command lines of the jobs and the tool: usage on {@code --help}, and bad arguments refused with exit
 * code 2 and one line naming the problem, before anything runs (no Spark session is started here).
 */
class CommandLinesTest {
  private record Run(int code, String out, String err) {}

  private static Run run(Object command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = CommandRunner.execute(command, new PrintWriter(out), new PrintWriter(err), args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void everyJobAndSubcommandHasHelp() {
    List<Supplier<Object>> jobs = List.of(BuildFilterJob::new, UpdateFilterJob::new, PruneJoinJob::new);
    List<String> names = List.of("build-filter", "update-filter", "prune-join");
    for (int i = 0; i < jobs.size(); i++) {
      Run help = run(jobs.get(i).get(), "--help");
      assertEquals(ExitCodes.OK, help.code(), help.err());
      assertTrue(help.out().startsWith("Usage: " + names.get(i) + " "), help.out());
    }
    for (String subcommand : List.of("info", "contains", "verify", "merge", "diff", "build")) {
      Run help = run(new CuckooCli(), subcommand, "--help");
      assertEquals(ExitCodes.OK, help.code(), help.err());
      assertTrue(help.out().startsWith("Usage: cuckoo " + subcommand + " "), help.out());
    }
  }

  @Test
  void badArgumentsAreRefusedNamingTheProblem() {
    Run missing = run(new BuildFilterJob(), "--input", "/data/customers", "--keys", "id");
    assertEquals(ExitCodes.USAGE, missing.code());
    assertEquals("build-filter: error: Missing required option: '--location=URI'\n"
        + "Try 'build-filter --help' for the options.\n", missing.err());

    Run headroom = run(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f", "--headroom", "1");
    assertEquals(ExitCodes.USAGE, headroom.code());
    assertTrue(headroom.err().startsWith("build-filter: error: --headroom must be between 1.05 and 1000.0, got 1.0\n"),
        headroom.err());

    // sizing that no filter can meet: refused before Spark starts, not by a failed Spark job
    Run unreachableFpp = run(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f", "--fpp",
        "1e-300");
    assertEquals(ExitCodes.USAGE, unreachableFpp.code(), unreachableFpp.err());
    assertTrue(unreachableFpp.err().startsWith("build-filter: error: --fpp 1.0E-300 cannot be met: fpp 1.0E-300 is "
        + "below what 32-bit fingerprints can deliver: fpp must be at least "), unreachableFpp.err());
    Run tooManyItems = run(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f",
        "--expected-items", "99999999999999999");
    assertEquals(ExitCodes.USAGE, tooManyItems.code(), tooManyItems.err());
    assertTrue(tooManyItems.err().startsWith("build-filter: error: --expected-items 99999999999999999 with --fpp 0.01 "
        + "cannot be met: expectedItems must be at most "), tooManyItems.err());

    Run halfASnapshot = run(new UpdateFilterJob(), "--location", "/f", "--before", "/b");
    assertEquals(ExitCodes.USAGE, halfASnapshot.code());
    assertTrue(halfASnapshot.err().startsWith("update-filter: error: Missing required argument(s): --after"),
        halfASnapshot.err());

    Run noChange = run(new UpdateFilterJob(), "--location", "/f", "--current", "/d");
    assertEquals(ExitCodes.USAGE, noChange.code());
    assertTrue(noChange.err().startsWith("update-filter: error: with --current, give --added, --deleted or both\n"),
        noChange.err());

    Run bothForms = run(new UpdateFilterJob(), "--location", "/f", "--current", "/d", "--added", "/a", "--before",
        "/b", "--after", "/c");
    assertEquals(ExitCodes.USAGE, bothForms.code());
    assertTrue(bothForms.err().contains("are mutually exclusive"), bothForms.err());

    Run outerJoin = run(new PruneJoinJob(), "--location", "/f", "--input", "/i", "--join-with", "/j", "--output",
        "/o", "--join-type", "left_outer");
    assertEquals(ExitCodes.USAGE, outerJoin.code());
    assertTrue(outerJoin.err().startsWith("prune-join: error: --join-type left_outer: the left side of a left_outer "
        + "join keeps its rows without a match; pruning them would change the result\n"), outerJoin.err());

    Run badVersion = run(new CuckooCli(), "info", "/f@0");
    assertEquals(ExitCodes.USAGE, badVersion.code());
    assertTrue(badVersion.err().contains("'/f@0' is not LOCATION or LOCATION@VERSION: versions are numbered from 1"),
        badVersion.err());

    Run noSubcommand = run(new CuckooCli());
    assertEquals(ExitCodes.USAGE, noSubcommand.code());
    assertTrue(noSubcommand.err().startsWith("cuckoo: error: a subcommand is needed\nUsage: cuckoo "),
        noSubcommand.err());
  }
}
