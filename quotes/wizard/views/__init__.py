"""The wizard's views: the steps (``steps``) and the stored result (``result``)."""
