//! vfio-user glue: regions and IRQs as QEMU sees them, the
//! [`ServerBackend`] that forwards to [`Device`], and the process lifecycle.
//!
//! Lifecycle: create the socket, serve exactly one client, and when it
//! disconnects write the final summary, remove the socket and return.
//! SIGTERM/SIGINT are taken by a dedicated thread (blocked everywhere else
//! with `pthread_sigmask`, collected with `sigwait`), which finishes the
//! device the same way and exits with status 0. The same thread takes
//! SIGUSR1, the run-time surprise removal ([`Device::surprise_remove`]): the
//! card vanishes while the guest runs, and the process goes on serving. The
//! device sits behind a mutex so that thread can reach it; a vfio-user
//! request holds the lock only while it is being handled, and handlers never
//! block, so the removal lands between two accesses.
//!
//! With `--control FIFO` a third thread reads test-control requests, one
//! per line ([`crate::control`]), and applies each to the device under the
//! same lock ([`Device::control`]). The FIFO is the caller's (`xehpg-vm`
//! creates it in its run directory); the mock opens it read-write before it
//! creates its socket, so a writer that waits for the socket finds a reader
//! and the mock never sees end-of-file when a writer closes. With
//! `--control-ack FILE` the thread writes the number of lines it has handled
//! to FILE after each one, so the caller can tell a guest that its request
//! is in effect before the guest goes on (`xehpg-vm` answers the guest's
//! `XEHPG-VM-MOCK=` line that way).

use std::fs::File;
use std::io;
use std::io::BufRead;
use std::mem::size_of;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;

use anyhow::bail;
use anyhow::Context;
use vfio_bindings::bindings::vfio::vfio_region_info;
use vfio_bindings::bindings::vfio::vfio_region_sparse_mmap_area;
use vfio_bindings::bindings::vfio::VFIO_PCI_BAR0_REGION_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_BAR2_REGION_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_CONFIG_REGION_INDEX;
use vfio_bindings::bindings::vfio::VFIO_PCI_NUM_REGIONS;
use vfio_bindings::bindings::vfio::VFIO_REGION_INFO_FLAG_MMAP;
use vfio_bindings::bindings::vfio::VFIO_REGION_INFO_FLAG_READ;
use vfio_bindings::bindings::vfio::VFIO_REGION_INFO_FLAG_WRITE;
use vfio_user::DmaMapFlags;
use vfio_user::DmaUnmapFlags;
use vfio_user::IrqInfo;
use vfio_user::Server;
use vfio_user::ServerBackend;
use vfio_user::ServerRegion;
use vfio_user::SparseArea;

use crate::cli::Options;
use crate::clock::MonotonicClock;
use crate::config_space::CONFIG_SIZE;
use crate::control::Request;
use crate::device::Device;
use crate::device::GGTT_SIZE;
use crate::device::GGTT_START;
use crate::irq;

/// The device as shared between the vfio-user loop and the signal thread.
type Shared = Arc<Mutex<Device>>;

/// Locks the device even if a previous holder panicked: the state is still
/// the best record of what happened, and the summary must be written.
fn lock(dev: &Shared) -> MutexGuard<'_, Device> {
    dev.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs one mock instance until QEMU disconnects.
///
/// # Errors
///
/// Setup failures (socket, memfds, trace file) and vfio-user protocol errors.
/// The summary is written in every case the process survives.
pub fn run(opts: &Options) -> anyhow::Result<()> {
    // First, so that no signal can kill the process before its handler runs.
    let signals = block_termination_signals()?;
    let control = opts.control.as_deref().map(open_control).transpose()?;
    let dev = Device::new(opts, Arc::new(MonotonicClock::new()))?;
    let server = Server::new(
        &prepare_socket(&opts.socket)?,
        true,
        irq_infos(),
        regions(&dev),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))
    .with_context(|| format!("listening on {}", opts.socket.display()))?;
    let dev: Shared = Arc::new(Mutex::new(dev));
    spawn_signal_thread(signals, dev.clone(), opts.socket.clone())?;
    if let Some(fifo) = control {
        spawn_control_thread(fifo, opts.control_ack.clone(), dev.clone())?;
    }
    spawn_tick_thread(dev.clone())?;
    let vf_sockets = spawn_vf_servers(opts, &dev)?;

    let result = server.run(&mut Backend {
        dev: dev.clone(),
        vf: None,
    });
    let reason = match &result {
        Ok(()) => "disconnect".to_owned(),
        Err(e) => format!("error: {e}"),
    };
    lock(&dev).finish(&reason);
    // Dropping the server removes the socket file.
    drop(server);
    for path in vf_sockets {
        let _ = std::fs::remove_file(path);
    }
    result.map_err(|e| anyhow::anyhow!("vfio-user: {e}"))
}

/// Creates the socket of each `--vf-socket` VF and starts a thread that
/// serves it ([`Backend`] for VF `n`): one client, the second VM, for the process's
/// life. Returns the socket paths, for removal at exit.
fn spawn_vf_servers(opts: &Options, dev: &Shared) -> anyhow::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for (vf, path) in &opts.vf_sockets {
        let (bar0, bar2) = lock(dev).guest_vf_bars();
        let regions = (0..VFIO_PCI_NUM_REGIONS)
            .map(|index| match index {
                // Trapped whole: every access goes through the VF's view.
                VFIO_PCI_BAR0_REGION_INDEX => region(index, bar0, rw()),
                VFIO_PCI_BAR2_REGION_INDEX => region(index, bar2, rw()),
                VFIO_PCI_CONFIG_REGION_INDEX => region(index, CONFIG_SIZE as u64, rw()),
                _ => region(index, 0, 0),
            })
            .collect();
        let server = Server::new(&prepare_socket(path)?, true, irq_infos(), regions)
            .map_err(|e| anyhow::anyhow!("{e}"))
            .with_context(|| format!("listening on {} for VF {vf}", path.display()))?;
        let mut backend = Backend {
            dev: dev.clone(),
            vf: Some(*vf),
        };
        let vf = *vf;
        std::thread::Builder::new()
            .name(format!("vf{vf}"))
            .spawn(move || {
                if let Err(e) = server.run(&mut backend) {
                    eprintln!("xehpg-mock: VF {vf}: vfio-user: {e}");
                }
                eprintln!("xehpg-mock: VF {vf}: client gone");
            })
            .context("spawning a VF server thread")?;
        paths.push(path.clone());
    }
    Ok(paths)
}

/// Opens the test-control FIFO read-write: the open does not wait for a
/// writer, and no writer closing it ends the reads.
fn open_control(path: &Path) -> anyhow::Result<File> {
    let meta = std::fs::metadata(path).with_context(|| format!("--control {}", path.display()))?;
    if !meta.file_type().is_fifo() {
        bail!("--control {} is not a FIFO", path.display());
    }
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("opening --control {}", path.display()))
}

/// Starts the thread that applies test-control requests; with `ack`, the
/// count of lines handled is written there after each one.
fn spawn_control_thread(fifo: File, ack: Option<PathBuf>, dev: Shared) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("control".into())
        .spawn(move || {
            let mut handled: u64 = 0;
            for line in io::BufReader::new(fifo).lines() {
                let Ok(line) = line else {
                    break;
                };
                if let Err(e) = apply_control_line(&line, &dev) {
                    eprintln!("xehpg-mock: control: {e}");
                }
                handled += 1;
                if let Some(path) = &ack {
                    if let Err(e) = write_ack(path, handled) {
                        eprintln!("xehpg-mock: control: writing {}: {e}", path.display());
                    }
                }
            }
        })
        .context("spawning the control thread")?;
    Ok(())
}

/// Replaces `path` with the count `handled` (a new file renamed over the
/// old, so a reader never sees half a number).
fn write_ack(path: &Path, handled: u64) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".new");
    std::fs::write(&tmp, format!("{handled}\n"))?;
    std::fs::rename(&tmp, path)
}

/// How often the tick thread lets time-driven device work happen
/// ([`Device::tick`]).
const TICK: std::time::Duration = std::time::Duration::from_millis(1);

/// Starts the thread that ticks the device: work that waits for time or for
/// the guest's progress in memory (the GuC's CT engine) happens without a
/// register access. It takes the lock for a moment every [`TICK`]; it ends
/// with the process.
fn spawn_tick_thread(dev: Shared) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("tick".into())
        .spawn(move || loop {
            std::thread::sleep(TICK);
            lock(&dev).tick();
        })
        .context("spawning the tick thread")?;
    Ok(())
}

/// `window-begin:NAME[:ARGS]`: opens test window NAME, the device as at
/// power-on with the mock options ARGS (space-separated) on top of the
/// command line's ([`Device::begin_window`]).
const WINDOW_BEGIN: &str = "window-begin:";

/// `window-end:NAME`: closes test window NAME ([`Device::end_window`]).
const WINDOW_END: &str = "window-end:";

/// Parses and applies one control line; an empty line is nothing.
fn apply_control_line(line: &str, dev: &Shared) -> Result<(), String> {
    let text = line.strip_suffix('\r').unwrap_or(line);
    if text.is_empty() {
        return Ok(());
    }
    if let Some(rest) = text.strip_prefix(WINDOW_BEGIN) {
        let (name, args) = rest.split_once(':').unwrap_or((rest, ""));
        let args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        lock(dev)
            .begin_window(name, &args)
            .map_err(|e| format!("{text}: {e:#}"))?;
        eprintln!("xehpg-mock: control: {text}");
        return Ok(());
    }
    if let Some(name) = text.strip_prefix(WINDOW_END) {
        lock(dev)
            .end_window(name)
            .map_err(|e| format!("{text}: {e:#}"))?;
        eprintln!("xehpg-mock: control: {text}");
        return Ok(());
    }
    let req = Request::parse(text)?;
    lock(dev).control(req);
    eprintln!("xehpg-mock: control: {req}");
    Ok(())
}

/// Checks the socket path; a stale socket left by a dead mock is removed.
fn prepare_socket(path: &Path) -> anyhow::Result<PathBuf> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(path.to_path_buf());
    };
    if !meta.file_type().is_socket() {
        bail!("{} exists and is not a socket", path.display());
    }
    match UnixStream::connect(path) {
        Ok(_) => bail!("{} is in use by a live server", path.display()),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            std::fs::remove_file(path)
                .with_context(|| format!("removing stale {}", path.display()))?;
            Ok(path.to_path_buf())
        }
        Err(e) => Err(e).with_context(|| format!("probing {}", path.display())),
    }
}

/// Region list indexed by VFIO PCI region index (BAR0..BAR5, ROM, config, VGA).
fn regions(dev: &Device) -> Vec<ServerRegion> {
    (0..VFIO_PCI_NUM_REGIONS)
        .map(|index| match index {
            VFIO_PCI_BAR0_REGION_INDEX => bar0_region(dev),
            VFIO_PCI_BAR2_REGION_INDEX => bar2_region(dev),
            VFIO_PCI_CONFIG_REGION_INDEX => region(index, CONFIG_SIZE as u64, rw()),
            // Absent: BAR1/BAR3 are the high halves of 64-bit BARs, no BAR4/5,
            // ROM or VGA.
            _ => region(index, 0, 0),
        })
        .collect()
}

fn rw() -> u32 {
    VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE
}

fn region(index: u32, size: u64, flags: u32) -> ServerRegion {
    ServerRegion {
        region_info: vfio_region_info {
            argsz: size_of::<vfio_region_info>() as u32,
            flags,
            index,
            cap_offset: 0,
            size,
            // Offset 0 in the region's mmap fd: sparse-area offsets are then
            // file offsets too.
            offset: 0,
        },
        sparse_areas: Vec::new(),
        mmap_fd: None,
    }
}

fn sparse(offset: u64, size: u64) -> SparseArea {
    SparseArea {
        area: vfio_region_sparse_mmap_area { offset, size },
    }
}

/// BAR0: trapped except the GGTT window, which QEMU maps from the memfd.
fn bar0_region(dev: &Device) -> ServerRegion {
    let mut r = region(VFIO_PCI_BAR0_REGION_INDEX, dev.bar0_size(), rw());
    if let Some(fd) = dev.ggtt_fd() {
        r.region_info.flags |= VFIO_REGION_INFO_FLAG_MMAP;
        r.sparse_areas = vec![sparse(GGTT_START, GGTT_SIZE)];
        r.mmap_fd = Some(fd);
    }
    r
}

/// BAR2: all of it mapped from the memfd.
fn bar2_region(dev: &Device) -> ServerRegion {
    let mut r = region(
        VFIO_PCI_BAR2_REGION_INDEX,
        dev.lmem_bar_size(),
        rw() | VFIO_REGION_INFO_FLAG_MMAP,
    );
    r.sparse_areas = vec![sparse(0, dev.lmem_bar_size())];
    r.mmap_fd = Some(dev.lmem_fd());
    r
}

/// IRQ list indexed by VFIO PCI IRQ index, from [`irq::ADVERTISED`].
fn irq_infos() -> Vec<IrqInfo> {
    (0u32..)
        .zip(irq::ADVERTISED)
        .map(|(index, (count, flags))| IrqInfo {
            index,
            flags,
            count,
        })
        .collect()
}

/// Forwards vfio-user requests to the shared device: the PF's (`vf`
/// `None`), or VF `n`'s as a function of its own (`device/guest_vf.rs`).
struct Backend {
    dev: Shared,
    vf: Option<u32>,
}

impl ServerBackend for Backend {
    fn region_read(&mut self, region: u32, offset: u64, data: &mut [u8]) -> io::Result<()> {
        let mut d = lock(&self.dev);
        match self.vf {
            None => d.region_read(region, offset, data),
            Some(vf) => d.vf_region_read(vf, region, offset, data),
        }
    }

    fn region_write(&mut self, region: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut d = lock(&self.dev);
        match self.vf {
            None => d.region_write(region, offset, data),
            Some(vf) => d.vf_region_write(vf, region, offset, data),
        }
    }

    fn dma_map(
        &mut self,
        flags: DmaMapFlags,
        offset: u64,
        address: u64,
        size: u64,
        fd: Option<File>,
    ) -> io::Result<()> {
        let mut d = lock(&self.dev);
        match self.vf {
            None => d.dma_map(flags, offset, address, size, fd),
            Some(vf) => d.vf_dma_map(vf, flags, offset, address, size, fd),
        }
    }

    fn dma_unmap(&mut self, flags: DmaUnmapFlags, address: u64, size: u64) -> io::Result<()> {
        let mut d = lock(&self.dev);
        match self.vf {
            None => d.dma_unmap(flags, address, size),
            Some(vf) => d.vf_dma_unmap(vf, address, size),
        }
        Ok(())
    }

    fn reset(&mut self) -> io::Result<()> {
        let mut d = lock(&self.dev);
        match self.vf {
            None => d.reset("vfio_user"),
            Some(vf) => d.vf_reset(vf),
        }
        Ok(())
    }

    fn set_irqs(
        &mut self,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        fds: Vec<File>,
    ) -> io::Result<()> {
        let mut d = lock(&self.dev);
        match self.vf {
            None => d.set_irqs(index, flags, start, count, fds),
            Some(vf) => d.vf_set_irqs(vf, index, flags, start, count, fds),
        }
    }
}

/// Blocks SIGTERM, SIGINT and SIGUSR1 in this thread, and so in every thread
/// spawned after it, leaving them pending for `sigwait`.
fn block_termination_signals() -> anyhow::Result<libc::sigset_t> {
    let set = termination_signals();
    // SAFETY: `set` is an initialised signal set; the old mask is not wanted.
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc)).context("blocking SIGTERM/SIGINT/SIGUSR1");
    }
    Ok(set)
}

/// Starts the thread that waits for the blocked termination signals.
fn spawn_signal_thread(set: libc::sigset_t, dev: Shared, socket: PathBuf) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || wait_for_signal(&set, &dev, &socket))
        .context("spawning the signal thread")?;
    Ok(())
}

fn termination_signals() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; sigemptyset initialises it fully before
    // sigaddset reads it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGUSR1);
        set
    }
}

/// What the signal thread does after a signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterSignal {
    /// Keep serving.
    Serve,
    /// The device is finished: remove the socket and exit.
    Exit,
}

/// Applies one collected signal to the device.
fn on_signal(sig: libc::c_int, dev: &Shared) -> AfterSignal {
    match sig {
        libc::SIGUSR1 => {
            if lock(dev).surprise_remove() {
                eprintln!(
                    "xehpg-mock: SIGUSR1: surprise removal, BAR0 registers now read all ones"
                );
            }
            AfterSignal::Serve
        }
        _ => {
            let name = if sig == libc::SIGINT {
                "SIGINT"
            } else {
                "SIGTERM"
            };
            lock(dev).finish(&format!("signal {name}"));
            AfterSignal::Exit
        }
    }
}

/// Waits for the blocked signals: a surprise removal is applied and the wait
/// goes on; a termination signal finishes the device and exits.
fn wait_for_signal(set: &libc::sigset_t, dev: &Shared, socket: &Path) {
    loop {
        let mut sig: libc::c_int = 0;
        // SAFETY: `set` is initialised and `sig` is a valid out-pointer.
        if unsafe { libc::sigwait(set, &mut sig) } != 0 {
            continue;
        }
        if on_signal(sig, dev) == AfterSignal::Exit {
            let _ = std::fs::remove_file(socket);
            // Exit from here: the main thread may be blocked in accept() or
            // recvmsg(), which the signal (blocked there) does not interrupt.
            std::process::exit(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use vfio_bindings::bindings::vfio::VFIO_IRQ_INFO_EVENTFD;

    fn device(opts: &Options) -> Device {
        Device::new(opts, Arc::new(ManualClock::new())).expect("device")
    }

    #[test]
    fn region_table_matches_the_bar_layout() {
        let dev = device(&Options::with_socket("/nonexistent"));
        let r = regions(&dev);
        assert_eq!(r.len(), 9);
        for (i, reg) in r.iter().enumerate() {
            assert_eq!(reg.region_info.index as usize, i);
        }
        let bar0 = &r[0];
        assert_eq!(bar0.region_info.size, 16 << 20);
        assert_ne!(bar0.region_info.flags & VFIO_REGION_INFO_FLAG_MMAP, 0);
        assert_eq!(bar0.sparse_areas.len(), 1);
        assert_eq!(
            (
                bar0.sparse_areas[0].area.offset,
                bar0.sparse_areas[0].area.size
            ),
            (8 << 20, 8 << 20)
        );
        assert_eq!(bar0.mmap_fd, dev.ggtt_fd());
        let bar2 = &r[2];
        assert_eq!(bar2.region_info.size, 256 << 20);
        assert_eq!(
            (
                bar2.sparse_areas[0].area.offset,
                bar2.sparse_areas[0].area.size
            ),
            (0, 256 << 20)
        );
        assert_eq!(bar2.mmap_fd, Some(dev.lmem_fd()));
        assert_eq!(r[7].region_info.size, 4096);
        for i in [1, 3, 4, 5, 6, 8] {
            assert_eq!(r[i].region_info.size, 0, "region {i}");
        }
    }

    #[test]
    fn small_bar0_has_no_mmap_window() {
        let mut o = Options::with_socket("/nonexistent");
        o.bar0_size_mib = 4;
        let dev = device(&o);
        let bar0 = bar0_region(&dev);
        assert_eq!(bar0.region_info.size, 4 << 20);
        assert!(bar0.sparse_areas.is_empty());
        assert_eq!(bar0.region_info.flags & VFIO_REGION_INFO_FLAG_MMAP, 0);
    }

    #[test]
    fn irq_table_advertises_intx_msi_and_err() {
        let irqs = irq_infos();
        assert_eq!(irqs.len(), 5);
        assert_eq!((irqs[1].index, irqs[1].count), (1, 1));
        assert_ne!(irqs[1].flags & VFIO_IRQ_INFO_EVENTFD, 0);
        assert_eq!(irqs[0].count, 1);
        assert_eq!((irqs[2].count, irqs[3].count, irqs[4].count), (0, 1, 0));
        for (i, irq) in irqs.iter().enumerate() {
            assert_eq!(irq.index as usize, i);
        }
    }

    #[test]
    fn sigusr1_removes_the_card_once_and_keeps_serving() {
        const GU_CNTL: u64 = 0x10_1010;
        let read = |dev: &Shared| {
            let mut b = [0u8; 4];
            lock(dev)
                .region_read(VFIO_PCI_BAR0_REGION_INDEX, GU_CNTL, &mut b)
                .expect("read");
            u32::from_le_bytes(b)
        };
        let dev: Shared = Arc::new(Mutex::new(device(&Options::with_socket("/nonexistent"))));
        assert_ne!(read(&dev), 0xFFFF_FFFF, "alive before the signal");
        assert_eq!(on_signal(libc::SIGUSR1, &dev), AfterSignal::Serve);
        assert_eq!(read(&dev), 0xFFFF_FFFF, "gone after it");
        assert_eq!(on_signal(libc::SIGUSR1, &dev), AfterSignal::Serve);
        let s = lock(&dev).summary();
        assert_eq!(s.faults, vec!["surprise-removal"], "recorded once");
        assert_eq!(s.surprise_removals, 1);
        assert!(!s.is_final, "still serving");
        assert_eq!(on_signal(libc::SIGTERM, &dev), AfterSignal::Exit);
        assert!(lock(&dev).summary().is_final, "finished on SIGTERM");
    }

    /// Control lines reach the device through the FIFO thread; a bad line
    /// is reported and changes nothing.
    #[test]
    fn control_lines_through_a_fifo() {
        let dir = std::env::temp_dir();
        let fifo = dir.join(format!("xehpg-mock-ctl-{}", std::process::id()));
        let _ = std::fs::remove_file(&fifo);
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let dev: Shared = Arc::new(Mutex::new(device(&Options::with_socket("/nonexistent"))));
        let ack = dir.join(format!("xehpg-mock-ctl-ack-{}", std::process::id()));
        let _ = std::fs::remove_file(&ack);
        spawn_control_thread(
            open_control(&fifo).expect("open"),
            Some(ack.clone()),
            dev.clone(),
        )
        .expect("thread");
        {
            let mut w = std::fs::OpenOptions::new()
                .write(true)
                .open(&fifo)
                .expect("writer");
            use std::io::Write;
            w.write_all(b"irq:guc:8000:3\nbogus\n\nspurious-msi\r\nsurprise-removal\n")
                .expect("write");
        }
        // Five lines, the bad and the empty one included: the count says
        // when all are handled, and by then their effects are there.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::fs::read_to_string(&ack).ok().as_deref() != Some("5\n") {
            assert!(std::time::Instant::now() < deadline, "requests not handled");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = std::fs::remove_file(&ack);
        let s = lock(&dev).summary();
        assert_eq!(s.surprise_removals, 1);
        // Nothing enabled the GuC: the three events were dropped, one by one.
        assert_eq!((s.irq.raised, s.irq.dropped_disabled), (3, 3));
        assert_eq!(s.irq.spurious_msis, 1);
        assert_eq!(s.irq.control_requests, 3);
        assert!(apply_control_line("irq:guc:8000", &dev).is_err());
        assert!(open_control(&dir.join("xehpg-mock-no-such-fifo")).is_err());
        let _ = std::fs::remove_file(&fifo);
        let file = dir.join(format!("xehpg-mock-ctl-file-{}", std::process::id()));
        std::fs::write(&file, b"").expect("file");
        assert!(open_control(&file).is_err(), "a plain file is refused");
        let _ = std::fs::remove_file(&file);
    }

    /// A test window starts the device over with its own options and its
    /// own record, and may not change what the guest saw at attach time.
    #[test]
    fn test_windows_restart_the_device_and_its_record() {
        let dir = std::env::temp_dir().join(format!("xehpg-mock-win-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let mut opts = Options::with_socket("/nonexistent");
        opts.summary = Some(dir.join("mock.json"));
        let dev: Shared = Arc::new(Mutex::new(device(&opts)));
        let read = |dev: &Shared| {
            const GU_CNTL: u64 = 0x10_1010;
            let mut b = [0u8; 4];
            lock(dev)
                .region_read(VFIO_PCI_BAR0_REGION_INDEX, GU_CNTL, &mut b)
                .expect("read");
        };
        let summary = |name: &str| -> serde_json::Value {
            let text = std::fs::read_to_string(dir.join(format!("window-{name}.json")))
                .expect("window summary");
            serde_json::from_str(&text).expect("JSON")
        };
        read(&dev);
        apply_control_line("window-begin:one:--fault all-ones", &dev).expect("begin");
        assert_eq!(
            summary("one")["mmio_reads"],
            serde_json::json!(0),
            "a new record"
        );
        assert_eq!(summary("one")["faults"], serde_json::json!(["all-ones"]));
        read(&dev);
        read(&dev);
        apply_control_line("window-end:one", &dev).expect("end");
        let one = summary("one");
        assert_eq!(
            (one["mmio_reads"].clone(), one["final"].clone()),
            (2.into(), true.into())
        );
        // The next window does not inherit the last one's fault.
        apply_control_line("window-begin:two", &dev).expect("begin");
        assert_eq!(summary("two")["faults"], serde_json::json!([]));
        assert!(
            apply_control_line("window-end:one", &dev).is_err(),
            "not open"
        );
        // Refused: a new device ID, a bad option, a bad name. The open
        // window stays open.
        assert!(apply_control_line("window-begin:three:--device-id 0x56a0", &dev).is_err());
        assert!(apply_control_line("window-begin:three:--no-such-option", &dev).is_err());
        assert!(apply_control_line("window-begin:../x", &dev).is_err());
        assert!(!dir.join("window-three.json").exists());
        // Options from the command line hold in a window unless it gives
        // its own; the same device ID again is no change.
        let mut cli = Options::try_parse_args([
            "xehpg-mock",
            "--socket",
            "/nonexistent",
            "--device-id",
            "0x56a0",
            "--gam-reset-slice",
            "1",
        ])
        .expect("options");
        cli.summary = opts.summary.clone();
        let w = cli.for_window(&[]).expect("no change");
        assert_eq!((w.device_id, w.gam_reset_slice), (0x56a0, 1));
        assert_eq!(w.summary, cli.summary, "the wiring stays");
        let w = cli
            .for_window(&[
                "--gam-reset-slice".into(),
                "0".into(),
                "--device-id".into(),
                "0x56a0".into(),
            ])
            .expect("override");
        assert_eq!((w.device_id, w.gam_reset_slice), (0x56a0, 0));
        assert!(cli
            .for_window(&["--revision".into(), "0x3f".into()])
            .is_err());
        apply_control_line("window-end:two", &dev).expect("still open");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_signal_thread_waits_for_sigusr1_too() {
        let set = termination_signals();
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGUSR1] {
            // SAFETY: `set` is an initialised signal set.
            assert_eq!(unsafe { libc::sigismember(&set, sig) }, 1, "signal {sig}");
        }
    }

    #[test]
    fn stale_socket_is_removed_but_other_files_are_not() {
        let dir = std::env::temp_dir();
        let sock = dir.join(format!("xehpg-mock-stale-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&sock);
        drop(std::os::unix::net::UnixListener::bind(&sock).expect("bind"));
        assert!(sock.exists(), "a closed listener leaves its file");
        assert_eq!(prepare_socket(&sock).expect("stale is fine"), sock);
        assert!(!sock.exists());

        let live = std::os::unix::net::UnixListener::bind(&sock).expect("bind");
        assert!(prepare_socket(&sock).is_err(), "live socket is kept");
        drop(live);
        let _ = std::fs::remove_file(&sock);

        let file = dir.join(format!("xehpg-mock-notsock-{}", std::process::id()));
        std::fs::write(&file, b"x").expect("write");
        assert!(prepare_socket(&file).is_err());
        assert!(file.exists());
        let _ = std::fs::remove_file(&file);
    }
}
