// Command tetherprof runs the tether command line in this process with
// profiles written, to find where a benchmark's time and memory go:
//
//	go build -o /tmp/tetherprof ./bench/tetherprof
//	cd CONFIG && /tmp/tetherprof -cpuprofile cpu.out -memprofile mem.out -- plan
//	go tool pprof -top /tmp/tetherprof cpu.out
//
// -memprofile is the heap at the end, with allocations since the start
// (`-sample_index=alloc_space`); -heapevery also writes the heap every so
// often, to catch its peak (FILE.1, FILE.2, ...).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/provider/tether"
)

func main() {
	tether.RuntimeMain()
	cpu := flag.String("cpuprofile", "", "write a CPU profile to this file")
	mem := flag.String("memprofile", "", "write a heap profile to this file at the end")
	every := flag.Duration("heapevery", 0, "also write the heap profile this often, to FILE.1, FILE.2, ...")
	usage := flag.Bool("rusage", false, "print this process's own CPU time, peak resident memory (providers excluded) and allocations to stderr at the end")
	flag.Parse()
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
	}
	stop := make(chan struct{})
	if *mem != "" && *every > 0 {
		go func() {
			for i := 1; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(*every):
				}
				writeHeap(fmt.Sprintf("%s.%d", *mem, i))
			}
		}()
	}
	code := cli.Main(flag.Args(), os.Stdin, os.Stdout, os.Stderr)
	close(stop)
	if *cpu != "" {
		pprof.StopCPUProfile()
	}
	if *mem != "" {
		writeHeap(*mem)
	}
	if *usage {
		var ru syscall.Rusage
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			fmt.Fprintf(os.Stderr, "tetherprof: own cpu %.3fs (user %.3fs sys %.3fs) peak rss %d MiB, allocated %d MiB in %d objects, %d GCs\n",
				cpu.Seconds(), time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds(), ru.Maxrss/1024,
				ms.TotalAlloc>>20, ms.Mallocs, ms.NumGC)
		}
	}
	os.Exit(code)
}

func writeHeap(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer f.Close()
	runtime.GC()
	pprof.WriteHeapProfile(f)
}
