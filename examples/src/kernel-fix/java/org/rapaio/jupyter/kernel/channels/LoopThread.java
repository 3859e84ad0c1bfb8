package org.rapaio.jupyter.kernel.channels;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Replaces the class of the same name in rapaio-jupyter-kernel 3.0.1 (the kernel the notebooks run in): it
 * comes first on the kernel's class path (examples/src/jupyter/kernels/spark-cuckoo-java/kernel.json), with
 * the same constructor and methods, and fixes two races that left about one kernel start in five unable to
 * answer Jupyter (nbconvert then fails with "Kernel didn't respond"):
 *
 * <ul>
 *   <li>3.0.1's {@code start()} sets its running flag after {@code Thread.start()}, so a thread that runs
 *       before the flag is set ends at once and its channel never reads a message again. Here the flag is
 *       set first.
 *   <li>A message that arrives before the kernel has registered its handlers (the client queues requests
 *       while the kernel starts) makes the loop body throw, which ended the thread. Here the loop logs the
 *       failure and goes on; Jupyter repeats its startup request until it is answered.
 * </ul>
 *
 * Remove this class once a kernel release with both fixes is on Maven Central.
 */
public final class LoopThread extends Thread {
  private static final Logger LOGGER = Logger.getLogger(LoopThread.class.getSimpleName());

  private volatile boolean running;
  private final long sleepMillis;
  private final Runnable loopBody;

  public LoopThread(String name, long sleepMillis, Runnable loopBody) {
    super(name);
    this.sleepMillis = sleepMillis;
    this.loopBody = loopBody;
  }

  @Override
  public void run() {
    while (running) {
      try {
        loopBody.run();
      } catch (RuntimeException e) {
        LOGGER.log(Level.WARNING, getName() + ": a message could not be handled, going on", e);
      }
      try {
        Thread.sleep(sleepMillis);
      } catch (InterruptedException e) {
        running = false;
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public synchronized void start() {
    running = true;
    super.start();
  }

  public void shutdown() {
    running = false;
  }
}
