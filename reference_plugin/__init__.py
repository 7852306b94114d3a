"""The REFERENCE device: ovconform's numpy oracle, registered like any third-party device."""
