"""WebFetch's parts: which addresses are this machine's (``address``), the connection that
holds to them (``transport``), the request loop with its caps (``fetch``), a body as text
(``page``) and what the model is given (``answer``). None of them is imported before the first
WebFetch call: httpx and the HTML converter load then."""
