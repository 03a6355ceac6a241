"""Names vulture (dead-code finder) takes for unused that are used: interface parameters and names in
string annotations. tests/test_quality.py runs vulture over attnviz with this list."""

# __exit__(self, exc_type, exc, traceback): the context-manager protocol's parameters
traceback  # noqa: B018, F821
exc  # noqa: B018, F821
exc_type  # noqa: B018, F821
# pymdownx superfences calls format(source, language, class_name, options, md, **kwargs) and validators alike
language  # noqa: B018, F821
class_name  # noqa: B018, F821
# the descriptor protocol: __get__(self, instance, owner)
instance  # noqa: B018, F821
# typing.py names these only inside string annotations ("np.integer", "MaskExpression")
np  # noqa: B018, F821
npt  # noqa: B018, F821
MaskExpression  # noqa: B018, F821
# IPython calls _repr_mimebundle_(self, include=None, exclude=None)
include  # noqa: B018, F821
exclude  # noqa: B018, F821
