// Starts the Web Worker (and so the download and compiling of meshport's WebAssembly module) at
// once, while the page's other modules (three.js, the viewer) are still loading; app.js takes it.
window.meshportBootWorker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
