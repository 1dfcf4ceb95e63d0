// A dedicated Worker of the page that calls the API with plain fetch().
self.onmessage = async (ev) => {
  const { path, body } = ev.data;
  const res = await fetch(path, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
  self.postMessage({ status: res.status, contentType: res.headers.get('content-type'), body: await res.json() });
};
